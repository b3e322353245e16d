package worktree

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

// noteHost records worktree notifications.
type noteHost struct {
	tools.NoHost
	notes []Changed
}

func (h *noteHost) Notify(_ context.Context, method string, params any) error {
	if method == MethodChanged {
		h.notes = append(h.notes, params.(Changed))
	}
	return nil
}

func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// newRepo makes a git repository with one commit.
// execute runs tool with input as the model would send it; host gets its
// notifications.
func execute(t *testing.T, tool tools.Tool, host tools.Host, input string) *tools.Result {
	t.Helper()
	res, err := tool.Execute(context.Background(), &tools.Call{Input: json.RawMessage(input), Host: host, Progress: tools.NoProgress{}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func newRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for k, v := range map[string]string{"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_GLOBAL": "/dev/null"} {
		t.Setenv(k, v)
	}
	repo, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	run(t, repo, "git", "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("a\n"), 0o644)
	run(t, repo, "git", "add", ".")
	run(t, repo, "git", "commit", "-q", "-m", "first")
	return repo
}

// TestWorktreeEnterAndExit states Claude Code's EnterWorktree and
// ExitWorktree: a new worktree on its own branch becomes where the session
// works; remove refuses to throw away work unless told; keep leaves it.
func TestWorktreeEnterAndExit(t *testing.T) {
	repo := newRepo(t)
	ws := workspace.New(repo)
	s := NewSession(ws, nil)
	host := &noteHost{}
	call := func(tool tools.Tool, input string) *tools.Result { return execute(t, tool, host, input) }
	enter, exit := NewEnter(s), NewExit(s)

	if res := call(exit, `{"action":"keep"}`); !res.IsError || !strings.Contains(res.Text(), "not in a worktree") {
		t.Errorf("exit before enter: %q", res.Text())
	}
	res := call(enter, `{"name":"fix-login"}`)
	out := res.Structured.(EnterOutput)
	wt := filepath.Join(repo, ".toolhost", "worktrees", "fix-login")
	if res.IsError || out.WorktreePath != wt || out.WorktreeBranch != "worktree-fix-login" {
		t.Fatalf("enter: %q %+v", res.Text(), out)
	}
	if got := run(t, wt, "git", "branch", "--show-current"); got != "worktree-fix-login" {
		t.Errorf("branch %q", got)
	}
	if ws.Root() != wt || !slices.Contains(ws.Roots(), repo) {
		t.Errorf("roots %v, want the worktree first and the repository kept", ws.Roots())
	}
	if p, _ := ws.Resolve("a.txt"); p != filepath.Join(wt, "a.txt") {
		t.Errorf("a relative path resolves to %s", p)
	}
	if st := run(t, repo, "git", "status", "--porcelain"); st != "" {
		t.Errorf("the worktree shows in the repository's status: %q", st)
	}
	if res := call(enter, `{"name":"other"}`); !res.IsError || !strings.Contains(res.Text(), "already in the worktree") {
		t.Errorf("second enter: %q", res.Text())
	}

	// Work in the worktree keeps remove from throwing it away.
	os.WriteFile(filepath.Join(wt, "new.txt"), []byte("x\n"), 0o644)
	if res := call(exit, `{"action":"remove"}`); !res.IsError || !strings.Contains(res.Text(), "1 uncommitted file(s)") || !strings.Contains(res.Text(), "new.txt") {
		t.Errorf("remove with a new file: %q", res.Text())
	}
	run(t, wt, "git", "add", ".")
	run(t, wt, "git", "commit", "-q", "-m", "work in the worktree")
	if res := call(exit, `{"action":"remove"}`); !res.IsError || !strings.Contains(res.Text(), "1 commit(s) not in the original checkout") || !strings.Contains(res.Text(), "work in the worktree") {
		t.Errorf("remove with a commit: %q", res.Text())
	}
	if ws.Root() != wt {
		t.Fatalf("a refused exit left the worktree")
	}
	res = call(exit, `{"action":"remove","discard_changes":true}`)
	xo := res.Structured.(ExitOutput)
	if res.IsError || xo.DiscardedCommits != 1 || xo.OriginalCwd != repo {
		t.Fatalf("remove: %q %+v", res.Text(), xo)
	}
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Errorf("the worktree is still on disk: %v", err)
	}
	if br := run(t, repo, "git", "branch", "--list", "worktree-fix-login"); br != "" {
		t.Errorf("the branch is left: %q", br)
	}
	if !slices.Equal(ws.Roots(), []string{repo}) {
		t.Errorf("roots after exit %v", ws.Roots())
	}

	// An existing worktree, kept on exit.
	other := filepath.Join(t.TempDir(), "other")
	run(t, repo, "git", "worktree", "add", "-q", "-b", "side", other)
	other, _ = filepath.EvalSymlinks(other)
	if res := call(enter, `{"path":"`+filepath.Join(repo, "nope")+`"}`); !res.IsError || !strings.Contains(res.Text(), "is not a worktree") {
		t.Errorf("enter a non-worktree: %q", res.Text())
	}
	res = call(enter, `{"path":"`+other+`"}`)
	if res.IsError || ws.Root() != other || res.Structured.(EnterOutput).WorktreeBranch != "side" {
		t.Fatalf("enter existing: %q", res.Text())
	}
	if res := call(exit, `{"action":"keep"}`); res.IsError || ws.Root() != repo {
		t.Fatalf("keep: %q", res.Text())
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("keep removed the worktree: %v", err)
	}

	want := []string{"enter " + wt, "remove " + wt, "enter " + other, "keep " + other}
	var got []string
	for _, n := range host.notes {
		got = append(got, n.Action+" "+n.WorktreePath)
	}
	if !slices.Equal(got, want) {
		t.Errorf("notifications %v, want %v", got, want)
	}
}

func TestWorktreeRefusals(t *testing.T) {
	notRepo := t.TempDir()
	s := NewSession(workspace.New(notRepo), nil)
	for input, want := range map[string]string{
		`{"name":"a","path":"/x"}`: "not both",
		`{"name":"../up"}`:         "", // checked below in a repository
	} {
		if want == "" {
			continue
		}
		res, _ := NewEnter(s).Execute(context.Background(), &tools.Call{Input: json.RawMessage(input), Host: tools.NoHost{}})
		if !res.IsError || !strings.Contains(res.Text(), want) {
			t.Errorf("%s: %q", input, res.Text())
		}
	}
	res, _ := NewEnter(s).Execute(context.Background(), &tools.Call{Input: json.RawMessage(`{}`), Host: tools.NoHost{}})
	if !res.IsError || !strings.Contains(res.Text(), "not in a git repository") {
		t.Errorf("not a repository: %q", res.Text())
	}
	repo := newRepo(t)
	s = NewSession(workspace.New(repo), nil)
	for _, name := range []string{"../up", "a b", strings.Repeat("x", 65), "a/./b"} {
		in, _ := json.Marshal(map[string]string{"name": name})
		res, _ := NewEnter(s).Execute(context.Background(), &tools.Call{Input: in, Host: tools.NoHost{}})
		if !res.IsError || !strings.Contains(res.Text(), "the worktree name") {
			t.Errorf("name %q: %q", name, res.Text())
		}
	}
}

// hostileRepo makes a repository whose own .git names commands: an
// fsmonitor, a post-checkout hook and a filter driver, each of which
// writes a marker file (in markers) when git runs it.
func hostileRepo(t *testing.T, markers string) string {
	t.Helper()
	repo := newRepo(t)
	run(t, repo, "git", "config", "core.fsmonitor", "touch "+filepath.Join(markers, "fsmonitor")+"; true")
	run(t, repo, "git", "config", "filter.evil.smudge", "touch "+filepath.Join(markers, "filter")+"; cat")
	run(t, repo, "git", "config", "filter.evil.clean", "cat")
	run(t, repo, "git", "config", "filter.evil.required", "true")
	hook := filepath.Join(repo, ".git", "hooks", "post-checkout")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\ntouch "+filepath.Join(markers, "post-checkout")+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(repo, ".gitattributes"), []byte("*.txt filter=evil\n"), 0o644)
	run(t, repo, "git", "add", ".")
	run(t, repo, "git", "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "commit", "-q", "-m", "attributes")
	for _, e := range []string{"fsmonitor", "filter", "post-checkout"} {
		os.Remove(filepath.Join(markers, e))
	}
	return repo
}

// In a folder the user has not trusted, EnterWorktree and ExitWorktree run
// git without the repository's fsmonitor, hooks and filter drivers; in a
// trusted folder git behaves as the repository configures it.
func TestWorktreeUntrustedRunsNoRepositoryCommand(t *testing.T) {
	for _, trusted := range []bool{false, true} {
		markers := t.TempDir()
		repo := hostileRepo(t, markers)
		s := NewSession(workspace.New(repo), func(root string) bool { return trusted && root == repo })
		ctx := context.Background()
		res, err := NewEnter(s).Execute(ctx, &tools.Call{Input: json.RawMessage(`{"name":"w"}`), Progress: tools.NoProgress{}})
		if err != nil || res.IsError {
			t.Fatalf("trusted %v: EnterWorktree: %v %q", trusted, err, res.Text())
		}
		wt := filepath.Join(repo, filepath.FromSlash(Dir), "w")
		if got, err := os.ReadFile(filepath.Join(wt, "a.txt")); err != nil || string(got) != "a\n" {
			t.Errorf("trusted %v: a.txt in the worktree: %q (%v)", trusted, got, err)
		}
		res, err = NewExit(s).Execute(ctx, &tools.Call{Input: json.RawMessage(`{"action":"remove"}`), Progress: tools.NoProgress{}})
		if err != nil || res.IsError {
			t.Fatalf("trusted %v: ExitWorktree: %v %q", trusted, err, res.Text())
		}
		var ran []string
		for _, e := range []string{"fsmonitor", "filter", "post-checkout"} {
			if _, err := os.Stat(filepath.Join(markers, e)); err == nil {
				ran = append(ran, e)
			}
		}
		if !trusted && len(ran) > 0 {
			t.Errorf("untrusted folder: git ran the repository's %v", ran)
		}
		if trusted && !slices.Contains(ran, "post-checkout") || trusted && !slices.Contains(ran, "filter") {
			t.Errorf("trusted folder: git ran only %v of the repository's commands, want its hook and filter", ran)
		}
	}
}
