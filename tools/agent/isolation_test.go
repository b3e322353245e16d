package agent_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo turns dir into a git repository with one commit of its files.
func gitRepo(t *testing.T, dir string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for k, v := range map[string]string{"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_GLOBAL": "/dev/null"} {
		t.Setenv(k, v)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"commit", "-q", "-m", "first"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// TestIsolationWorktree states Claude Code's isolation "worktree" for the
// built-in runner: the sub-agent's tools work in a git worktree of its own;
// a worktree with changes is kept and named, one without is removed.
func TestIsolationWorktree(t *testing.T) {
	t.Setenv(keyEnv, "sk-test")

	// The sub-agent writes a file with a relative path.
	cs := newChatServer(t, script(
		toolCalls([3]string{"w1", "Write", `"{\"file_path\":\"made.txt\",\"content\":\"by the sub-agent\\n\"}"`}),
		final("wrote made.txt"),
	))
	s, root := newSession(t, cs.URL, 0)
	gitRepo(t, root)
	resp, err := callAgent(context.Background(), t, s, &host{}, `{"description":"Make a file","prompt":"Write made.txt","isolation":"worktree"}`)
	if err != nil {
		t.Fatal(err)
	}
	text := resp.Text()
	if resp.IsError || !strings.HasPrefix(text, "wrote made.txt") || !strings.Contains(text, "holds its changes") {
		t.Fatalf("got %q", text)
	}
	if _, err := os.Stat(filepath.Join(root, "made.txt")); !os.IsNotExist(err) {
		t.Errorf("the sub-agent wrote into the user's checkout: %v", err)
	}
	matches, _ := filepath.Glob(filepath.Join(root, ".toolhost", "worktrees", "*", "made.txt"))
	if len(matches) != 1 || !strings.Contains(text, filepath.Dir(matches[0])) {
		t.Fatalf("the worktree with the file: %v; report %q", matches, text)
	}
	if got, _ := os.ReadFile(matches[0]); string(got) != "by the sub-agent\n" {
		t.Errorf("made.txt holds %q", got)
	}
	if !strings.Contains(toolMessage(t, cs.requests()[1], "w1"), filepath.Dir(matches[0])) {
		t.Errorf("the Write did not happen in the worktree: %q", toolMessage(t, cs.requests()[1], "w1"))
	}

	// A sub-agent that changes nothing leaves no worktree behind.
	cs2 := newChatServer(t, script(final("nothing to do")))
	s2, root2 := newSession(t, cs2.URL, 0)
	gitRepo(t, root2)
	resp, err = callAgent(context.Background(), t, s2, &host{}, `{"description":"Look","prompt":"Look around","isolation":"worktree"}`)
	if err != nil {
		t.Fatal(err)
	}
	if resp.IsError || !strings.Contains(resp.Text(), "changed nothing there; the worktree was removed") {
		t.Errorf("got %q", resp.Text())
	}
	out, _ := exec.Command("git", "-C", root2, "worktree", "list").Output()
	if n := strings.Count(strings.TrimSpace(string(out)), "\n"); n != 0 {
		t.Errorf("worktrees left:\n%s", out)
	}

	// Outside a git repository isolation fails and says why.
	cs3 := newChatServer(t, script(final("x")))
	s3, _ := newSession(t, cs3.URL, 0)
	resp, _ = callAgent(context.Background(), t, s3, &host{}, `{"description":"Look","prompt":"Look","isolation":"worktree"}`)
	if !resp.IsError || !strings.Contains(resp.Text(), "not in a git repository") {
		t.Errorf("outside a repository: %q", resp.Text())
	}
	resp, _ = callAgent(context.Background(), t, s3, &host{}, `{"description":"Look","prompt":"Look","isolation":"remote"}`)
	if !resp.IsError || !strings.Contains(resp.Text(), `isolation "remote" is not supported`) {
		t.Errorf("remote: %q", resp.Text())
	}
}
