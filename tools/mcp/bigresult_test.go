package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/workspace"
)

// TestLargeMCPResultIsCutAndSaved: a 3 MB answer of an MCP tool does not
// reach the model whole. The result holds at most the limit (25,000
// tokens of 4 characters, or MAX_MCP_OUTPUT_TOKENS), and names a file in
// the workspace that holds the whole text; a small answer passes as it is.
func TestLargeMCPResultIsCutAndSaved(t *testing.T) {
	t.Setenv("TOOLHOST_STATE_DIR", t.TempDir())
	line := strings.Repeat("x", 99) + "\n"
	big := "BEGIN\n" + strings.Repeat(line, 30_000) + "END\n" // 3 MB
	srv := sdk.NewServer(&sdk.Implementation{Name: "big", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "dump", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: big}}}, nil
		})
	srv.AddTool(&sdk.Tool{Name: "small", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "small answer"}}}, nil
		})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(hs.Close)

	tests := []struct {
		name     string
		env      map[string]string
		maxChars int
	}{
		{"default limit", nil, 25000 * 4},
		{"MAX_MCP_OUTPUT_TOKENS", map[string]string{"MAX_MCP_OUTPUT_TOKENS": "1000"}, 1000 * 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			_, reg, log := startManager(t, root, map[string]settings.MCPServer{"big": {Type: "http", URL: hs.URL}}, func(o *Options) {
				o.Getenv = func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }
			})
			log.waitFor(t, 0, "big connected", connected("big"))

			res, _ := call(t, reg, "mcp__big__dump", map[string]any{})
			text := res.Text()
			if res.IsError {
				t.Fatalf("error: %.300s", text)
			}
			// The note may add a few hundred characters to the limit.
			if len(text) > tt.maxChars+1000 {
				t.Fatalf("the result carries %d characters, want at most the limit %d and a note", len(text), tt.maxChars)
			}
			if !strings.HasPrefix(text, "BEGIN\n") {
				t.Errorf("the result does not keep the start: %.50q", text)
			}
			path := regexp.MustCompile(`saved in (\S+\.log)`).FindStringSubmatch(text)
			if path == nil {
				t.Fatalf("the result names no saved file: %.300s", text[len(text)-400:])
			}
			// Saved outputs live in the workspace's state folder, outside
			// the workspace, where the permission checker lets Read in
			// without a prompt (permission's savedOutput).
			if state, _ := workspace.StateDir(root); !strings.HasPrefix(path[1], state) {
				t.Errorf("saved in %s, want the workspace's state folder %s", path[1], state)
			}
			saved, err := os.ReadFile(path[1])
			if err != nil || string(saved) != big {
				t.Fatalf("the saved file does not hold the whole result (%d of %d bytes): %v", len(saved), len(big), err)
			}

			if res, _ := call(t, reg, "mcp__big__small", map[string]any{}); res.Text() != "small answer" {
				t.Errorf("a small result was changed: %q", res.Text())
			}
		})
	}
}
