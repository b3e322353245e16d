package mcpserver_test

import (
	"context"
	"flag"
	"io"
	"path/filepath"
	"testing"

	"github.com/toolhost/toolhost/internal/script"
	"github.com/toolhost/toolhost/internal/script/scripttest"
	"github.com/toolhost/toolhost/mcpserver"
)

var update = flag.Bool("update", false, "rewrite the expected messages of testdata/mcp/*.txtar with the server's")

// TestSessions replays every scripted MCP session in testdata/mcp through
// Serve (toolhost mcp) over in-memory pipes, newline-delimited as on stdio,
// rooted at the session's workspace, with input lines capped at 512 bytes.
func TestSessions(t *testing.T) {
	scripttest.Run(t, filepath.Join("..", "testdata", "mcp"), script.Options{Lines: true}, *update, func(dir string) script.ServeFunc {
		return func(ctx context.Context, in io.Reader, out io.Writer) error {
			return mcpserver.Serve(ctx, in, out, mcpserver.Options{Roots: []string{filepath.Join(dir, "ws")}, MaxMessageBytes: 512})
		}
	})
}
