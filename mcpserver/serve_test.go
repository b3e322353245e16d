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

	ctx, cancel := context.WithCancel(context.Background())
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	served := make(chan error, 1)
	// The user trusts the folder, so its .mcp.json is read; the server
	// still asks once.
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	if _, err := (settings.TrustFile{Path: settings.DefaultTrustFilePath()}).Trust(work); err != nil {
		t.Fatal(err)
	}
	go func() { served <- Serve(ctx, serverIn, serverOut, Options{Roots: []string{work}}) }()
	t.Cleanup(func() {
		cancel()
		_ = clientOut.Close()
		<-served // Serve closes the session, ending server-everything
	})

	asked := make(chan string, 1)
	changed := make(chan struct{}, 16)
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			asked <- req.Params.Message
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "allow"}}, nil
		},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
	})
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

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
