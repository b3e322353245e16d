package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/settings"
)

// TestHooksRunOutsideUntrustedFolder: a user's hook runs commands by name
// (`./lint`, `npx pkg`); started in an untrusted folder it would run the
// folder's own. Until trust it starts in the neutral folder, still told
// where the workspace is; once trusted, in the workspace.
func TestHooksRunOutsideUntrustedFolder(t *testing.T) {
	state := t.TempDir()
	t.Setenv("TOOLHOST_STATE_DIR", state)
	root := t.TempDir()
	records := t.TempDir()
	// The folder ships a program the user's hook names relatively.
	if err := os.WriteFile(filepath.Join(root, "lint"), []byte("#!/bin/sh\necho ran > "+filepath.Join(records, "decoy")+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	hook := script(t, records, "hook.sh", `pwd -P >> `+filepath.Join(records, "cwd")+`; printf '%s\n' "$CLAUDE_PROJECT_DIR" >> `+filepath.Join(records, "project")+`; ./lint 2>/dev/null; true`)

	for _, tt := range []struct {
		trusted   bool
		wantDecoy bool
	}{{false, false}, {true, true}} {
		_ = os.Remove(filepath.Join(records, "cwd"))
		set := settings.Defaults()
		set.Hooks = map[string][]settings.HookMatcher{PreToolUse: {{Matcher: "Bash", Hooks: []settings.HookCommand{{Command: hook}}}}}
		r := NewRunner(Options{
			Settings: func() *settings.Settings { return set },
			Dir:      func() string { return root },
			Trusted:  func() bool { return tt.trusted },
		})
		r.Run(context.Background(), Event{Name: PreToolUse, ToolName: "Bash"})

		_, err := os.Stat(filepath.Join(records, "decoy"))
		if ran := err == nil; ran != tt.wantDecoy {
			t.Fatalf("trusted=%v: the folder's program ran = %v, want %v", tt.trusted, ran, tt.wantDecoy)
		}
		cwd, _ := os.ReadFile(filepath.Join(records, "cwd"))
		wantPrefix, _ := filepath.EvalSymlinks(state)
		if tt.trusted {
			wantPrefix, _ = filepath.EvalSymlinks(root)
		}
		if !strings.HasPrefix(strings.TrimSpace(string(cwd)), wantPrefix) {
			t.Errorf("trusted=%v: the hook ran in %q, want under %s", tt.trusted, cwd, wantPrefix)
		}
	}
	project, _ := os.ReadFile(filepath.Join(records, "project"))
	if got := strings.Fields(string(project)); len(got) != 2 || got[0] != root || got[1] != root {
		t.Errorf("CLAUDE_PROJECT_DIR = %q, want the workspace %s both times", got, root)
	}
}
