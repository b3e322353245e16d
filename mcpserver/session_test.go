package mcpserver_test

import (
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/script"
	"github.com/toolhost/toolhost/mcpserver"
)

var update = flag.Bool("update", false, "rewrite the expected messages of testdata/mcp/*.txtar with the server's")

// TestSessions replays every scripted MCP session in testdata/mcp through
// Serve (toolhost mcp) over in-memory pipes, newline-delimited as on stdio,
// rooted at the session's workspace, with input lines capped at 512 bytes.
func TestSessions(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "mcp", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no sessions in testdata/mcp")
	}
	// The developer's own user settings (MCP servers, rules) must not
	// change what the sessions see.
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			s, err := script.Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			serve := func(ctx context.Context, in io.Reader, out io.Writer) error {
				return mcpserver.Serve(ctx, in, out, mcpserver.Options{Roots: []string{filepath.Join(dir, "ws")}, MaxMessageBytes: 512})
			}
			// The deadline only keeps a broken session from hanging the run.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			res, err := s.Replay(ctx, serve, script.Options{Dir: dir, Lines: true, Update: *update})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range res.Failures {
				t.Error(f)
			}
			if *update && len(res.Failures) == 0 {
				if err := os.WriteFile(file, res.Archive, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
