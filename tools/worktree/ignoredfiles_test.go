package worktree

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

// TestWorktreeRemoveKeepsIgnoredFiles: a file that .gitignore hides is
// work too (an .env, a local config: perhaps the only copy), so remove
// refuses to delete it unless told, and an agent's worktree holding one is
// kept rather than cleaned up.
func TestWorktreeRemoveKeepsIgnoredFiles(t *testing.T) {
	repo := newRepo(t)
	os.WriteFile(filepath.Join(repo, ".gitignore"), []byte("*.local\n"), 0o644)
	run(t, repo, "git", "add", ".gitignore")
	run(t, repo, "git", "commit", "-q", "-m", "ignore")
	s := NewSession(workspace.New(repo), nil)
	call := func(tool tools.Tool, input string) *tools.Result { return execute(t, tool, &noteHost{}, input) }
	if res := call(NewEnter(s), `{"name":"w"}`); res.IsError {
		t.Fatalf("enter: %s", res.Text())
	}
	wt := filepath.Join(repo, ".toolhost", "worktrees", "w")
	secret := filepath.Join(wt, "db.local")
	os.WriteFile(secret, []byte("the only copy\n"), 0o600)
	res := call(NewExit(s), `{"action":"remove"}`)
	if !res.IsError || !strings.Contains(res.Text(), "db.local") || !strings.Contains(res.Text(), ".gitignore hides") {
		t.Errorf("remove with an ignored file: %q, want a refusal naming it", res.Text())
	}
	if _, err := os.Stat(secret); err != nil {
		t.Fatalf("the ignored file is gone: %v", err)
	}
	call(NewExit(s), `{"action":"keep"}`)

	m, err := Create(context.Background(), repo, "agent-1", false)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(m.Path, "notes.local"), []byte("x\n"), 0o644)
	kept, err := m.RemoveIfClean(context.Background())
	if err != nil || !kept {
		t.Errorf("RemoveIfClean with an ignored file: kept=%v err=%v, want it kept", kept, err)
	}
}
