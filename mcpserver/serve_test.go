package mcpserver

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/testnpm"
	"github.com/toolhost/toolhost/settings"
)

// serveOverPipes runs Serve (toolhost mcp) over work and connects a client
// with opts to it; the server ends, its session closed, when the test does.
func serveOverPipes(t *testing.T, work string, opts *sdk.ClientOptions) (context.Context, *sdk.ClientSession) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, serverIn, serverOut, Options{Roots: []string{work}}) }()
	t.Cleanup(func() {
		cancel()
		_ = clientOut.Close()
		<-served // Serve closes the session, ending its MCP servers
	})
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, opts).Connect(ctx, &sdk.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return ctx, cs
}

// TestServeApprovesProjectServersThroughTheClient runs Serve over pipes
// in a workspace whose .mcp.json names server-everything: the server starts
// only after the client allowed it in an elicitation form, and its tools
// then appear in the tool list.
func TestServeApprovesProjectServersThroughTheClient(t *testing.T) {
	script := testnpm.EverythingScript(t)
	work := t.TempDir()
	project := `{"mcpServers": {"everything": {"command": "node", "args": ["` + filepath.ToSlash(script) + `", "stdio"]}}}`
	if err := os.WriteFile(filepath.Join(work, ".mcp.json"), []byte(project), 0o644); err != nil {
		t.Fatal(err)
	}

	// The user trusts the folder, so its .mcp.json is read; the server
	// still asks once.
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	if _, err := (settings.TrustFile{Path: settings.DefaultTrustFilePath()}).Trust(work); err != nil {
		t.Fatal(err)
	}
	asked := make(chan string, 1)
	changed := make(chan struct{}, 16)
	ctx, cs := serveOverPipes(t, work, &sdk.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			asked <- req.Params.Message
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "allow"}}, nil
		},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
	})

	if msg := <-asked; !strings.Contains(msg, `"everything"`) || !strings.Contains(msg, ".mcp.json") {
		t.Fatalf("the approval form does not name the server and its origin: %q", msg)
	}
	for {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(res.Tools, func(tl *sdk.Tool) bool { return tl.Name == "mcp__everything__echo" }) {
			break
		}
		<-changed
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "mcp__everything__echo", Arguments: map[string]any{"message": "through two servers"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "through two servers") {
		t.Fatalf("echo through toolhost: %+v", res.Content)
	}
}

// TestServeWithoutAnEditorOffersNoLanguageTools: `toolhost mcp` on its own
// has no editor, so it lists neither getDiagnostics nor LSP (their answers
// come from an editor's language servers), its instructions say so and
// name --attach, and a model that calls one anyway (as trained on Claude
// Code) gets an error saying what to do, not "unknown tool".
func TestServeWithoutAnEditorOffersNoLanguageTools(t *testing.T) {
	work := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	if err := os.WriteFile(filepath.Join(work, "a.ts"), []byte("export const a = 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cs := serveOverPipes(t, work, nil)

	if ins := cs.InitializeResult().Instructions; !strings.Contains(ins, "no editor") || !strings.Contains(ins, "--attach") {
		t.Errorf("the instructions do not say there is no editor and how to get one: %q", ins)
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Contains(names, "Read") {
		t.Fatalf("the listing lacks Read: %v", names)
	}
	cases := []struct {
		name string
		args map[string]any
	}{
		{"LSP", map[string]any{"operation": "hover", "filePath": "a.ts", "line": 1, "character": 14}},
		{"getDiagnostics", map[string]any{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if slices.Contains(names, tc.name) {
				t.Errorf("toolhost mcp without an editor lists %s", tc.name)
			}
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tc.name, Arguments: tc.args})
			if err != nil {
				t.Fatalf("calling %s: %v, want a tool error saying there is no editor", tc.name, err)
			}
			text := res.Content[0].(*sdk.TextContent).Text
			if !res.IsError || !strings.Contains(text, "no editor") || !strings.Contains(text, "--attach") {
				t.Errorf("%s without an editor answered %q (isError %v), want an error that says there is no editor and names --attach", tc.name, text, res.IsError)
			}
		})
	}
}
