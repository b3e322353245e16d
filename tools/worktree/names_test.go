package worktree

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

// The uncommitted files ExitWorktree lists show escaped, one a line, even
// where the repository turns git's quoting of non-ASCII names off.
func TestWorktreeExitListsHostileNamesEscaped(t *testing.T) {
	repo := newRepo(t)
	s := NewSession(workspace.New(repo), nil)
	call := func(tool tools.Tool, input string) *tools.Result { return execute(t, tool, &noteHost{}, input) }
	if res := call(NewEnter(s), `{"name":"w"}`); res.IsError {
		t.Fatalf("enter: %s", res.Text())
	}
	wt := filepath.Join(repo, ".toolhost", "worktrees", "w")
	run(t, wt, "git", "config", "core.quotePath", "false")
	for _, name := range []string{"bidi\u202etxt.sh", "nl\nforged.txt"} {
		if err := os.WriteFile(filepath.Join(wt, name), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	text := call(NewExit(s), `{"action":"remove"}`).Text()
	if strings.Contains(text, "\u202e") || strings.Contains(text, "\nforged") {
		t.Errorf("a name shows raw:\n%s", text)
	}
	if !strings.Contains(text, `?? "bidi\342\200\256txt.sh"`) || !strings.Contains(text, `?? "nl\nforged.txt"`) {
		t.Errorf("the names are not listed quoted:\n%s", text)
	}
	call(NewExit(s), `{"action":"keep"}`)
}
