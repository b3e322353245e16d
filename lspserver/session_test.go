package lspserver_test

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
	"github.com/toolhost/toolhost/lspserver"
)

var update = flag.Bool("update", false, "rewrite the expected messages of testdata/sessions/*.txtar with the server's")

// serve runs the real server as the editor sessions see it.
func serve(ctx context.Context, in io.Reader, out io.Writer) error {
	return lspserver.Serve(ctx, in, out, lspserver.Options{Version: "test"})
}

// TestSessions replays every scripted editor session in testdata/sessions
// through Serve over in-memory pipes.
func TestSessions(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "sessions", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no sessions in testdata/sessions")
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
			// The deadline only keeps a broken session from hanging the run.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			res, err := s.Replay(ctx, serve, script.Options{Dir: t.TempDir(), Update: *update})
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

// TestDemoPrintsTheSession runs the demo as `toolhost demo` does and checks
// the printout shows the conversation readably.
func TestDemoPrintsTheSession(t *testing.T) {
	var out strings.Builder
	file := filepath.Join("..", "testdata", "sessions", "demo.txtar")
	if err := script.Demo(context.Background(), &out, file, serve); err != nil {
		t.Fatalf("Demo: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"→ editor → toolhost: request 1 initialize",
		"← toolhost → editor: result of 3 toolhost/callTool",
		"    │      6\t\treturn a - b",
		"← toolhost → editor: request 1 toolhost/requestPermission",
		"← toolhost → editor: request 2 workspace/applyEdit",
		"→ editor → toolhost: result of 2 workspace/applyEdit",
		"    │ +\treturn a + b",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the demo output lacks %q:\n%s", want, out.String())
		}
	}
}
