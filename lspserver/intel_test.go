package lspserver

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/discovery"
	"github.com/toolhost/toolhost/session"
)

// intelEditor answers like an editor with a TypeScript server: edits are
// applied, and after the first one the file has a type error; the
// definition of anything is line 2 of util.ts. It ends when the server's
// output closes, at the test's cleanup.
func intelEditor(c *testClient, root string) {
	edited := false
	for m := range c.msgs {
		method, _ := m["method"].(string)
		var result any
		switch method {
		case "":
			continue
		case "workspace/applyEdit":
			edited = true
			result = map[string]any{"applied": true}
		case "toolhost/requestPermission":
			result = map[string]any{"decision": "allow"}
		case "toolhost/diagnostics":
			var ds []any
			if edited {
				ds = append(ds, map[string]any{"severity": 1, "code": 2322, "source": "ts", "message": "Type 'string' is not assignable to type 'number'.",
					"range": map[string]any{"start": map[string]any{"line": 0, "character": 6}, "end": map[string]any{"line": 0, "character": 7}}})
			}
			result = map[string]any{"items": []any{map[string]any{"uri": "file://" + filepath.Join(root, "app.ts"), "diagnostics": ds}}}
		case "toolhost/languageFeature":
			result = []any{map[string]any{"uri": "file://" + filepath.Join(root, "util.ts"),
				"range": map[string]any{"start": map[string]any{"line": 1, "character": 16}, "end": map[string]any{"line": 1, "character": 19}}}}
		default:
			if m["id"] == nil {
				continue
			}
		}
		c.send(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": result})
	}
}

// TestAttachedAgentGetsTheEditorsLanguageIntel: an agent on the session's
// MCP endpoint (what toolhost mcp --attach connects to) gets the diagnostics
// after its Edit and LSP answers from the editor's client.
func TestAttachedAgentGetsTheEditorsLanguageIntel(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	root := t.TempDir()
	for name, text := range map[string]string{"app.ts": "const n: number = 1;\n", "util.ts": "// util\nexport function add() {}\n"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := startServer(t, Options{AgentEndpoint: true, OnSession: func(*session.Session) {}})
	c.request(0, "initialize", map[string]any{"rootPath": root, "capabilities": map[string]any{
		"workspace":    map[string]any{"applyEdit": true},
		"experimental": map[string]any{"toolhost": map[string]any{"requestPermission": true, "diagnostics": true, "languageFeatures": true}},
	}})
	if m := c.next(); m["error"] != nil {
		t.Fatalf("initialize: %v", m["error"])
	}
	c.notify("initialized", map[string]any{})
	c.request(1, "toolhost/status", nil)
	var file string
	for file == "" {
		m := c.next()
		if res, ok := m["result"].(map[string]any); ok {
			file = res["agentEndpoint"].(map[string]any)["sessionFile"].(string)
		}
	}
	go intelEditor(c, root)
	ctx := context.Background()
	cs := connectAgent(t, file)
	app := filepath.Join(root, "app.ts")
	if res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "Read", Arguments: map[string]any{"file_path": app}}); err != nil || res.IsError {
		t.Fatalf("Read: %v %q", err, textOf(res))
	}
	cases := []struct {
		name string
		args map[string]any
		want string
	}{
		{"Edit", map[string]any{"file_path": app, "old_string": "= 1", "new_string": "= \"1\""},
			"<new-diagnostics>The following new diagnostic issues were detected:\napp.ts:\n  ✖ [Line 1:7] Type 'string' is not assignable to type 'number'. [2322] (ts)"},
		{"LSP", map[string]any{"operation": "goToDefinition", "filePath": "app.ts", "line": 1, "character": 7}, "Defined in util.ts:2:17\n  export function add() {}"},
		{"getDiagnostics", map[string]any{"uri": "app.ts"}, `"code": "2322"`},
	}
	for _, tc := range cases {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tc.name, Arguments: tc.args})
		if err != nil || res.IsError || !strings.Contains(textOf(res), tc.want) {
			t.Errorf("%s through the endpoint = %v %q, want it to contain %q", tc.name, err, textOf(res), tc.want)
		}
	}
}

// TestLanguageToolsOfferedOnlyWithTheCapability: an editor client that did
// not declare the capability a language tool needs is not offered that
// tool, neither in toolhost/listTools nor to an agent on its endpoint
// (tools/list, ToolSearch), and a call of it, from either, answers why.
// A client that declared one capability is offered that tool alone.
func TestLanguageToolsOfferedOnlyWithTheCapability(t *testing.T) {
	cases := []struct {
		name        string
		declared    map[string]any
		offered     []string
		notOffered  []string
		callAnswers string // what a call of the first tool not offered answers
	}{
		{"neither", map[string]any{}, nil, []string{"LSP", "getDiagnostics"}, "did not declare experimental.toolhost.languageFeatures"},
		{"diagnostics", map[string]any{"diagnostics": true}, []string{"getDiagnostics"}, []string{"LSP"}, "did not declare experimental.toolhost.languageFeatures"},
		{"languageFeatures", map[string]any{"languageFeatures": true}, []string{"LSP"}, []string{"getDiagnostics"}, "did not declare experimental.toolhost.diagnostics"},
		{"both", map[string]any{"diagnostics": true, "languageFeatures": true}, []string{"LSP", "getDiagnostics"}, nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
			t.Setenv("XDG_CONFIG_HOME", t.TempDir())
			root := t.TempDir()
			if err := os.WriteFile(filepath.Join(root, "a.ts"), []byte("export const a = 1;\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			declared := map[string]any{"requestPermission": true}
			for k, v := range tc.declared {
				declared[k] = v
			}
			c := startServer(t, Options{AgentEndpoint: true, OnSession: func(*session.Session) {}})
			c.request(0, "initialize", map[string]any{"rootPath": root, "capabilities": map[string]any{
				"workspace": map[string]any{"applyEdit": true}, "experimental": map[string]any{"toolhost": declared},
			}})
			if m := c.next(); m["error"] != nil {
				t.Fatalf("initialize: %v", m["error"])
			}
			c.notify("initialized", map[string]any{})
			ed := newFakeEditor(c)

			c.request(1, "toolhost/listTools", map[string]any{})
			var listed struct {
				Tools []struct{ Name string } `json:"tools"`
			}
			raw, _ := json.Marshal(ed.result(t)["result"])
			if err := json.Unmarshal(raw, &listed); err != nil {
				t.Fatal(err)
			}
			var editorNames []string
			for _, tl := range listed.Tools {
				editorNames = append(editorNames, tl.Name)
			}

			c.request(2, "toolhost/status", nil)
			file := ed.result(t)["result"].(map[string]any)["agentEndpoint"].(map[string]any)["sessionFile"].(string)
			ctx := context.Background()
			cs := connectAgent(t, file)
			list, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var agentNames []string
			for _, tl := range list.Tools {
				agentNames = append(agentNames, tl.Name)
			}
			for _, n := range tc.offered {
				if !slices.Contains(editorNames, n) || !slices.Contains(agentNames, n) {
					t.Errorf("%s is not offered: listTools %v, the agent's tools/list %v", n, editorNames, agentNames)
				}
			}
			for _, n := range tc.notOffered {
				if slices.Contains(editorNames, n) || slices.Contains(agentNames, n) {
					t.Errorf("%s is offered though its capability was not declared: listTools %v, the agent's tools/list %v", n, editorNames, agentNames)
				}
				found, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "ToolSearch", Arguments: map[string]any{"query": "select:" + n}})
				if err != nil || strings.Contains(textOf(found), `"name":"`+n+`"`) || !strings.Contains(textOf(found), "did not declare") {
					t.Errorf("ToolSearch select:%s = %v %q, want no definition and the reason", n, err, textOf(found))
				}
			}
			if len(tc.notOffered) == 0 {
				return
			}
			n := tc.notOffered[0]
			input := map[string]any{"operation": "hover", "filePath": "a.ts", "line": 1, "character": 14}
			if n == "getDiagnostics" {
				input = map[string]any{}
			}
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: n, Arguments: input})
			if err != nil || !res.IsError || !strings.Contains(textOf(res), tc.callAnswers) {
				t.Errorf("the agent's call of %s = %v %q, want an error saying %q", n, err, textOf(res), tc.callAnswers)
			}
			c.request(3, "toolhost/callTool", map[string]any{"name": n, "input": input})
			if text := resultText(t, ed.result(t)); !strings.Contains(text, tc.callAnswers) {
				t.Errorf("the editor's call of %s = %q, want an error saying %q", n, text, tc.callAnswers)
			}
		})
	}
}

// connectAgent connects an MCP client, as an agent attached with --attach
// would, to the agent endpoint the session file describes; the test's end
// closes it.
func connectAgent(t *testing.T, sessionFile string) *sdk.ClientSession {
	t.Helper()
	info, err := discovery.Read(sessionFile)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "claude-code"}, nil).Connect(context.Background(),
		&sdk.StreamableClientTransport{Endpoint: info.URL, HTTPClient: &http.Client{Transport: tokenClient{info.Token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
