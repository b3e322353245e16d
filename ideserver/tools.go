package ideserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/workspace"
)

// The protocol's answers that the CLI reads as words, not JSON.
const (
	fileSaved    = "FILE_SAVED"
	diffRejected = "DIFF_REJECTED"
	tabClosed    = "TAB_CLOSED"
)

// tool is one of the protocol's tools: its description and input
// properties (all strings or booleans), and who answers it.
type tool struct {
	name, description string
	// props maps a property to its JSON type and description.
	props    map[string][2]string
	required []string
	// local answers from the server; nil sends the call to the editor.
	local func(s *Server, args map[string]any) (any, error)
	// format turns the editor's answer into the protocol's content; nil
	// sends the answer as JSON text.
	format func(args map[string]any, answer json.RawMessage) ([]sdk.Content, error)
}

// protocolTools are the protocol's tools, made when a server adds them
// (once), not in the package's init: the binary that holds this package
// also answers toolhost mcp, whose start pays for every package init.
func protocolTools() []tool {
	return []tool{
		{name: "openDiff", description: "Shows a proposed change to a file as a review in the editor and waits for the user: " + fileSaved + " and the final text when they accept (their own changes to the proposal included), " + diffRejected + " when they reject or close it.",
			props: map[string][2]string{
				"old_file_path":     {"string", "the file as it is"},
				"new_file_path":     {"string", "where the proposal is saved"},
				"new_file_contents": {"string", "the whole proposed text"},
				"tab_name":          {"string", "the review's name, for close_tab"},
			},
			required: []string{"old_file_path", "new_file_path", "new_file_contents", "tab_name"},
			format:   formatDiff},
		{name: "close_tab", description: "Closes the review named tab_name (only reviews toolhost opened).",
			props:    map[string][2]string{"tab_name": {"string", "the review's name"}},
			required: []string{"tab_name"},
			format: func(map[string]any, json.RawMessage) ([]sdk.Content, error) {
				return []sdk.Content{&sdk.TextContent{Text: tabClosed}}, nil
			}},
		{name: "closeAllDiffTabs", description: "Closes every review toolhost opened for Claude Code (never other tabs).",
			format: func(_ map[string]any, answer json.RawMessage) ([]sdk.Content, error) {
				var a struct {
					Closed int `json:"closed"`
				}
				if err := json.Unmarshal(answer, &a); err != nil {
					return nil, fmt.Errorf("the editor's answer to closeAllDiffTabs has no count: %w", err)
				}
				return []sdk.Content{&sdk.TextContent{Text: "CLOSED_" + strconv.Itoa(a.Closed) + "_DIFF_TABS"}}, nil
			}},
		{name: "getDiagnostics", description: "The editor's diagnostics (from its language servers) for one file URI, or for every file.",
			props: map[string][2]string{"uri": {"string", "a file URI; omit for all files"}}},
		{name: "getOpenEditors", description: "The documents open in the editor."},
		{name: "getWorkspaceFolders", description: "The workspace folders open in the editor.", local: workspaceFolders},
		{name: "getCurrentSelection", description: "The selection in the editor's current window."},
		{name: "getLatestSelection", description: "The latest selection the editor reported, in whichever window.", local: latestSelection},
		{name: "checkDocumentDirty", description: "Whether the document has changes not saved to disk.",
			props: map[string][2]string{"filePath": {"string", "absolute path"}}, required: []string{"filePath"}, local: documentDirty},
		{name: "saveDocument", description: "Saves the editor's document to disk.",
			props: map[string][2]string{"filePath": {"string", "absolute path"}}, required: []string{"filePath"}},
		{name: "openFile", description: "Opens a file in the editor, optionally selecting from startText to endText.",
			props: map[string][2]string{
				"filePath":          {"string", "absolute path"},
				"preview":           {"boolean", "open as a preview"},
				"startText":         {"string", "select from the first occurrence of this text"},
				"endText":           {"string", "to this text"},
				"selectToEndOfLine": {"boolean", "extend the selection to the end of its line"},
				"makeFrontmost":     {"boolean", "make it the current window (default true)"},
			},
			required: []string{"filePath"},
			format:   formatOpenFile},
	}
}

// addTools adds the protocol's tools to the MCP server.
func (s *Server) addTools() {
	for _, t := range protocolTools() {
		schema := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}, Required: t.required}
		for name, p := range t.props {
			schema.Properties[name] = &jsonschema.Schema{Type: p[0], Description: p[1]}
		}
		s.mcp.AddTool(&sdk.Tool{Name: t.name, Description: t.description, InputSchema: schema}, s.handler(t))
	}
}

// handler answers t: a fault (bad arguments, no editor, the editor's
// error) is a tool error the CLI shows, never a protocol error.
func (s *Server) handler(t tool) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		args := map[string]any{}
		if raw := req.Params.Arguments; len(raw) > 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, &args); err != nil {
				return toolError("the arguments of %s are not a JSON object: %v", t.name, err), nil
			}
		}
		for _, r := range t.required {
			if _, ok := args[r].(string); !ok {
				return toolError("%s needs %s (a string)", t.name, r), nil
			}
		}
		if t.local != nil {
			v, err := t.local(s, args)
			if err != nil {
				return toolError("%s: %v", t.name, err), nil
			}
			return jsonText(v)
		}
		if s.cfg.Editor == nil {
			return toolError("%s: this editor does not answer Claude Code's IDE tools (its toolhost client is too old, or it has none)", t.name), nil
		}
		raw, _ := json.Marshal(args)
		answer, err := s.cfg.Editor.IDETool(ctx, t.name, raw)
		if err != nil {
			return toolError("%s: the editor failed: %v", t.name, err), nil
		}
		if t.format == nil {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(answer)}}}, nil
		}
		content, err := t.format(args, answer)
		if err != nil {
			return toolError("%s: %v", t.name, err), nil
		}
		return &sdk.CallToolResult{Content: content}, nil
	}
}

// formatDiff turns the editor's {saved, text} into FILE_SAVED and the
// final text, or DIFF_REJECTED and the review's name.
func formatDiff(args map[string]any, answer json.RawMessage) ([]sdk.Content, error) {
	var a struct {
		Saved bool    `json:"saved"`
		Text  *string `json:"text"`
	}
	if err := json.Unmarshal(answer, &a); err != nil {
		return nil, fmt.Errorf("the editor's answer is not {saved, text}: %w", err)
	}
	if !a.Saved {
		return []sdk.Content{&sdk.TextContent{Text: diffRejected}, &sdk.TextContent{Text: fmt.Sprint(args["tab_name"])}}, nil
	}
	if a.Text == nil {
		return nil, fmt.Errorf("the editor accepted the review but sent no text")
	}
	return []sdk.Content{&sdk.TextContent{Text: fileSaved}, &sdk.TextContent{Text: *a.Text}}, nil
}

// formatOpenFile says which file was opened, or gives the editor's
// details when the file was opened in the background (makeFrontmost
// false), as the protocol does.
func formatOpenFile(args map[string]any, answer json.RawMessage) ([]sdk.Content, error) {
	if front, ok := args["makeFrontmost"].(bool); ok && !front {
		return []sdk.Content{&sdk.TextContent{Text: string(answer)}}, nil
	}
	return []sdk.Content{&sdk.TextContent{Text: "Opened file: " + fmt.Sprint(args["filePath"])}}, nil
}

func workspaceFolders(s *Server, _ map[string]any) (any, error) {
	type folder struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
		Path string `json:"path"`
	}
	out := struct {
		Success  bool     `json:"success"`
		Folders  []folder `json:"folders"`
		RootPath string   `json:"rootPath"`
	}{Success: true, Folders: []folder{}}
	for i, f := range s.cfg.Folders() {
		out.Folders = append(out.Folders, folder{Name: filepath.Base(f), URI: workspace.PathToURI(f), Path: f})
		if i == 0 {
			out.RootPath = f
		}
	}
	return out, nil
}

func latestSelection(s *Server, _ map[string]any) (any, error) {
	s.mu.Lock()
	sel := s.selection
	s.mu.Unlock()
	if sel == nil {
		return map[string]any{"success": false, "message": "No selection available"}, nil
	}
	var v map[string]any
	if err := json.Unmarshal(sel, &v); err != nil {
		return nil, err
	}
	v["success"] = true
	return v, nil
}

// documentDirty answers from the overlay: a document is dirty when the
// editor's text differs from the file on disk.
func documentDirty(s *Server, args map[string]any) (any, error) {
	path := args["filePath"].(string)
	var text string
	open := false
	if s.cfg.Document != nil {
		text, open = s.cfg.Document(filepath.Clean(path))
	}
	if !open {
		return map[string]any{"success": false, "message": "Document not open: " + path}, nil
	}
	disk, err := os.ReadFile(path)
	dirty := err != nil || !bytes.Equal(disk, []byte(text))
	return map[string]any{"success": true, "filePath": path, "isDirty": dirty, "isUntitled": false}, nil
}

func jsonText(v any) (*sdk.CallToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(b)}}}, nil
}

func toolError(format string, args ...any) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "Error: " + fmt.Sprintf(format, args...)}}}
}
