package lspserver_test

import (
	"context"
	"flag"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/script"
	"github.com/toolhost/toolhost/internal/script/scripttest"
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
	scripttest.Run(t, filepath.Join("..", "testdata", "sessions"), script.Options{}, *update, func(string) script.ServeFunc { return serve })
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
