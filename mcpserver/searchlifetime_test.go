//go:build unix

package mcpserver

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/toolhost/toolhost/internal/testproc"
)

// The programs a search starts end with the server too: ripgrep reading a
// huge file (a sparse one here, which reads for minutes) does not go on
// reading, reparented to init, after the server is killed.
func TestASearchEndsWithAKilledServer(t *testing.T) {
	if _, err := exec.LookPath("rg"); err != nil {
		t.Skip("ripgrep is not installed")
	}
	bin := toolhostBinary(t)
	dir := t.TempDir()
	big := filepath.Join(dir, "big.bin")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 40); err != nil {
		t.Skipf("cannot make a sparse file here: %v", err)
	}
	f.Close()
	cmd := exec.Command(bin, "call", "Grep", `{"pattern":"needle","path":"big.bin"}`)
	cmd.Dir, cmd.Env = dir, isolatedEnv(t)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var children []int
	testproc.WaitFor(t, "the search to start", func() bool {
		children = childrenOf(cmd.Process.Pid, "rg")
		return len(children) > 0
	})
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	for _, pid := range children {
		if !testproc.EventuallyGone(pid) {
			t.Errorf("ripgrep (%d) outlived the killed server", pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// childrenOf returns the processes whose parent is pid and whose command
// is named name.
func childrenOf(pid int, name string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(stat)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open {
			continue
		}
		fields := strings.Fields(s[end+1:])
		if len(fields) > 1 && s[open+1:end] == name && fields[1] == strconv.Itoa(pid) {
			out = append(out, p)
		}
	}
	return out
}

// What git starts for a call — a hook of a trusted repository that forks a
// daemon as a worktree is checked out — ends with a killed server as well.
func TestAGitHookDaemonEndsWithAKilledServer(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	bin := toolhostBinary(t)
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	env := isolatedEnv(t)
	run := func(args ...string) {
		t.Helper()
		c := exec.Command("git", append([]string{"-C", repo}, args...)...)
		c.Env = append(env, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	run("init", "-q")
	run("commit", "-q", "--allow-empty", "-m", "first")
	// The hook forks a daemon, then keeps git busy while the server is
	// killed.
	hook := filepath.Join(repo, ".git", "hooks", "post-checkout")
	pidFile := filepath.Join(dir, "daemon.pid")
	script := "#!/bin/sh\nsetsid sleep 1000 > /dev/null 2>&1 < /dev/null & echo $! > " + pidFile + "\nexec sleep 1000\n"
	if err := os.WriteFile(hook, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	// bypassPermissions, the user's choice in isolatedEnv, trusts the folder.
	cmd := exec.Command(bin, "call", "EnterWorktree", `{"name":"w"}`)
	cmd.Dir, cmd.Env = repo, env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := testproc.ReadPID(t, pidFile)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if !testproc.EventuallyGone(pid) {
		t.Errorf("the hook's daemon (%d) outlived the killed server", pid)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}
