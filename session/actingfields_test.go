package session

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/engine"
)

// TestBashWorkdirIsRefusedBeforeRunning: another agent's Bash fields that
// say where or how to run (Goa's workdir and env, cwd) are not dropped
// after the fact: the command, which would have acted in the root, never
// runs, even in bypassPermissions.
func TestBashWorkdirIsRefusedBeforeRunning(t *testing.T) {
	s, root := newTestSession(t, "")
	if err := s.Permissions.SetMode(tools.ModeBypassPermissions); err != nil {
		t.Fatal(err)
	}
	for _, input := range []string{
		`{"command":"rm -rf build","workdir":"sub"}`,
		`{"command":"rm -rf build","cwd":"sub"}`,
		`{"command":"rm -rf $DIR","env":{"DIR":"sub/build"}}`,
	} {
		for _, d := range []string{"build", "sub/build"} {
			if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		resp, err := s.Pipeline.Call(context.Background(), tools.NoHost{}, engine.Request{Name: "Bash", Input: json.RawMessage(input)})
		if err != nil {
			t.Fatal(err)
		}
		if !resp.IsError || !strings.Contains(resp.Text(), "nothing was run") {
			t.Errorf("%s: %q, want a refusal", input, resp.Text())
		}
		for _, d := range []string{"build", "sub/build"} {
			if _, err := os.Stat(filepath.Join(root, d)); err != nil {
				t.Errorf("%s: %s was removed: %v", input, d, err)
			}
		}
	}
}
