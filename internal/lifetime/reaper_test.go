//go:build linux

package lifetime

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/toolhost/toolhost/internal/testproc"
)

// A reaped command's descendants that cleared their environment (env -i)
// end when the command ends and when it is cancelled; those that kept the
// scope are left to its owner when the command ends by itself.
func TestReaperEndsEnvClearedDescendants(t *testing.T) {
	for _, cancelled := range []bool{false, true} {
		name := map[bool]string{false: "the command ends", true: "the command is cancelled"}[cancelled]
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			script := testproc.EnvClearingScript(dir) + "\nsleep 1000 & echo $! > " + dir + "/labelled.pid"
			if cancelled {
				script += "\nwait"
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cmd := Reaped(ctx, nil, "bash", "-c", script)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pids := testproc.EnvClearedPIDs(t, dir)
			labelled := testproc.ReadPID(t, dir+"/labelled.pid")
			for name, pid := range pids {
				if env := testproc.EnvOf(pid); strings.Contains(env, Var) {
					t.Fatalf("the %s process kept the label: %q", name, env)
				}
			}
			if cancelled {
				cancel()
			}
			err := cmd.Wait()
			// Its end, as callers mark it.
			cancel()
			for name, pid := range pids {
				if !testproc.EventuallyGone(pid) {
					t.Errorf("the %s process %d outlived its command", name, pid)
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			if cancelled {
				if !testproc.EventuallyGone(labelled) {
					t.Errorf("the labelled process %d outlived its command's cancel", labelled)
				}
				return
			}
			if err != nil {
				t.Errorf("the command failed: %v", err)
			}
			if testproc.Gone(labelled) {
				t.Errorf("the labelled process ended with its command; its owner ends it")
			}
			ScopeOf(cmd).Kill()
			if !testproc.EventuallyGone(labelled) {
				t.Errorf("the labelled process %d outlived a kill of its scope", labelled)
			}
		})
	}
}

// The reaper ends as its command did: the same exit status, or the same
// signal.
func TestReaperKeepsTheExitStatus(t *testing.T) {
	tests := []struct {
		script string
		code   int
		signal syscall.Signal
	}{
		{"exit 0", 0, 0},
		{"exit 3", 3, 0},
		{"kill -TERM $$", -1, syscall.SIGTERM},
		{"kill -SEGV $$", -1, syscall.SIGSEGV},
		{"kill -KILL $$", -1, syscall.SIGKILL},
	}
	for _, tc := range tests {
		t.Run(tc.script, func(t *testing.T) {
			cmd := Reaped(context.Background(), nil, "sh", "-c", tc.script)
			err := cmd.Run()
			var exit *exec.ExitError
			if err != nil && !errors.As(err, &exit) {
				t.Fatal(err)
			}
			if got := cmd.ProcessState.ExitCode(); got != tc.code {
				t.Errorf("exit code %d, want %d", got, tc.code)
			}
			ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if tc.signal != 0 && (!ws.Signaled() || ws.Signal() != tc.signal) {
				t.Errorf("status %v, want killed by %v", ws, tc.signal)
			}
		})
	}
}

// A reaped command's output and working folder are its own, and a
// command that cannot be found fails to start, as without a reaper.
func TestReapedCommandIsTheCommand(t *testing.T) {
	dir := t.TempDir()
	cmd := Reaped(context.Background(), []string{"GREETING=hello"}, "sh", "-c", `echo "$GREETING from $(pwd)"; echo "scope=$`+Var+`" >&2`)
	cmd.Dir = dir
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if want := "hello from " + dir + "\n"; stdout.String() != want {
		t.Errorf("stdout %q, want %q", stdout.String(), want)
	}
	if want := "scope=" + string(ScopeOf(cmd)) + "\n"; stderr.String() != want || ScopeOf(cmd) == "" {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	if err := Reaped(context.Background(), nil, "no-such-program-here").Start(); !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("got %v, want exec.ErrNotFound", err)
	}
}

// A kill of the scope (what the server does as it ends) does not kill the
// reaper, which carries no label: it sees its command end and ends what
// cleared its environment.
func TestScopeKillLeavesTheReaperItsWork(t *testing.T) {
	dir := t.TempDir()
	cmd := Reaped(context.Background(), nil, "bash", "-c", testproc.EnvClearingScript(dir)+"\nsleep 1000")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pids := testproc.EnvClearedPIDs(t, dir)
	if n := ScopeOf(cmd).Kill(); n == 0 {
		t.Errorf("the scope kill found no process")
	}
	_ = cmd.Wait()
	for name, pid := range pids {
		if !testproc.EventuallyGone(pid) {
			t.Errorf("the %s process %d outlived its command's scope kill", name, pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// A process that clears its environment and leaves its session right as
// its command ends (env -i setsid CMD &) ends with the command, every
// time: it is still labelled when the command ends, and clears the label
// a moment later, which the watch of the command's group catches.
func TestDetachedEnvClearedProcessEndsWithItsCommand(t *testing.T) {
	if err := CgroupStatus(); err != nil {
		t.Skipf("no cgroups here (%v): the reaper judges such a process once, when its command ends", err)
	}
	detachedEndsEveryTime(t, func(ctx context.Context, script string) *exec.Cmd { return Reaped(ctx, nil, "bash", "-c", script) })
}

// detachedEndsEveryTime runs env -i setsid sleep 1000 & twenty times, each
// by a command start makes, and fails when the detached process outlives
// one of them.
func detachedEndsEveryTime(t *testing.T, start func(ctx context.Context, script string) *exec.Cmd) {
	t.Helper()
	for i := range 20 {
		dir := t.TempDir()
		ctx, cancel := context.WithCancel(context.Background())
		cmd := start(ctx, "env -i setsid sleep 1000 & echo $! > "+dir+"/pid")
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		cancel()
		pid := testproc.ReadPID(t, dir+"/pid")
		if !testproc.EventuallyGone(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("try %d: the detached process %d outlived its command", i+1, pid)
		}
	}
}

// A labelled process a command left running (a server started with &)
// outlives the command, is ended when it clears its environment later,
// and its group is removed once it is gone.
func TestLeftRunningProcessIsWatched(t *testing.T) {
	if err := CgroupStatus(); err != nil {
		t.Skipf("no cgroups here: %v", err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	// The child waits for a file, then replaces itself with an
	// environment-less sleep.
	script := "(while [ ! -e " + dir + "/go ]; do sleep 0.01; done; exec env -i sleep 1000) & echo $! > " + dir + "/pid"
	cmd := Reaped(ctx, nil, "bash", "-c", script)
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	cancel()
	pid := testproc.ReadPID(t, dir+"/pid")
	g := groupOf(ScopeOf(cmd))
	if g == nil {
		t.Fatal("the command has no group")
	}
	if testproc.Gone(pid) {
		t.Fatal("the labelled process ended with its command; the session ends it")
	}
	if err := os.WriteFile(dir+"/go", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if !testproc.EventuallyGone(pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the process %d cleared its environment and outlived its command", pid)
	}
	testproc.WaitFor(t, "the group's removal", func() bool {
		_, err := os.Stat(g.dir)
		return errors.Is(err, os.ErrNotExist)
	})
}

// reapedCommand runs script below a reaper (the fallback where cgroups
// cannot be had), whatever this machine has.
func reapedCommand(t *testing.T, ctx context.Context, script string) *exec.Cmd {
	t.Helper()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	if !reap(ctx, cmd, nil, NewScope()) {
		t.Skip("no reaper in this test binary")
	}
	return cmd
}

// The reaper's sibling of TestDetachedEnvClearedProcessEndsWithItsCommand:
// below a reaper too, env -i setsid CMD & ends with its command every
// time, though it clears the label only after the command ended.
func TestDetachedEnvClearedProcessEndsBelowTheReaper(t *testing.T) {
	detachedEndsEveryTime(t, func(ctx context.Context, script string) *exec.Cmd { return reapedCommand(t, ctx, script) })
}

// Below a reaper, a labelled process the command left running outlives
// the command, which returns at once; it is ended when it clears its
// environment later, and the reaper's watcher then ends too.
func TestLeftRunningProcessIsWatchedBelowTheReaper(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	script := "(while [ ! -e " + dir + "/go ]; do sleep 0.01; done; exec env -i sleep 1000) & echo $! > " + dir + "/pid; echo $PPID > " + dir + "/watcher"
	cmd := reapedCommand(t, ctx, script)
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	cancel()
	pid := testproc.ReadPID(t, dir+"/pid")
	watcher := testproc.ReadPID(t, dir+"/watcher")
	if testproc.Gone(pid) {
		t.Fatal("the labelled process ended with its command; the session ends it")
	}
	if testproc.Gone(watcher) {
		t.Fatal("the reaper's watcher ended while a process of its command was left")
	}
	if err := os.WriteFile(dir+"/go", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if !testproc.EventuallyGone(pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the process %d cleared its environment and outlived its command", pid)
	}
	if !testproc.EventuallyGone(watcher) {
		t.Errorf("the watcher %d stayed after nothing was left below it", watcher)
	}
}

// BenchmarkShellStart is what a command's containment adds to a
// `bash -c 'echo hi'`: none, a cgroup of its own, or the reaper (a second
// start of this binary).
func BenchmarkShellStart(b *testing.B) {
	ways := []struct {
		name string
		make func(ctx context.Context, cmd *exec.Cmd) bool
	}{
		{"bare", func(context.Context, *exec.Cmd) bool { return true }},
		{"cgroup", func(ctx context.Context, cmd *exec.Cmd) bool { return contain(ctx, cmd, nil, NewScope()) }},
		{"reaper", func(ctx context.Context, cmd *exec.Cmd) bool { return reap(ctx, cmd, nil, NewScope()) }},
	}
	for _, w := range ways {
		b.Run(w.name, func(b *testing.B) {
			for b.Loop() {
				ctx, cancel := context.WithCancel(context.Background())
				cmd := exec.CommandContext(ctx, "bash", "-c", "echo hi")
				if !w.make(ctx, cmd) {
					cancel()
					b.Skip("not available here")
				}
				if out, err := cmd.Output(); err != nil || string(out) != "hi\n" {
					b.Fatalf("%q, %v", out, err)
				}
				cancel()
			}
		})
	}
}
