package lifetime

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testproc"
)

// These tests run the test binary itself as the commands' processes
// (childMain), so that they need no shell and run on Linux and Windows
// alike (under Wine too, in make test-windows).

func TestScopeEnv(t *testing.T) {
	s := NewScope()
	env := s.Env([]string{"A=1", Var + "=inherited/0", "B=2"})
	if got := strings.Join(env, " "); got != "A=1 B=2 "+Var+"="+string(s) {
		t.Errorf("Env = %s", got)
	}
	if NewScope() == s {
		t.Errorf("two scopes are equal")
	}
}

// readPIDs waits for the pid files of the modes in dir.
func readPIDs(t *testing.T, dir string, modes ...string) map[string]int {
	t.Helper()
	pids := map[string]int{}
	for _, m := range modes {
		pids[m] = testproc.ReadPID(t, filepath.Join(dir, m+".pid"))
	}
	return pids
}

// A call's processes end with its cancel and with a kill of its scope,
// one whose parent ended before (which a walk of the process tree from the
// command cannot find) included.
func TestTheWholeTreeEndsWithItsCall(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(s Scope, cancel context.CancelFunc)
	}{
		{"cancel", func(_ Scope, cancel context.CancelFunc) { cancel() }},
		{"kill of the scope", func(s Scope, _ context.CancelFunc) { s.Kill() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cmd := Reaped(ctx, nil, os.Args[0], childArg, "orphaner", dir)
			if err := Start(cmd); err != nil {
				t.Fatal(err)
			}
			pids := readPIDs(t, dir, "orphaner", "abandoner", "orphan", "sleeper")
			testproc.WaitFor(t, "the abandoner's exit", func() bool { return testproc.Gone(pids["abandoner"]) })
			tc.end(ScopeOf(cmd), cancel)
			for _, m := range []string{"orphaner", "orphan", "sleeper"} {
				if !testproc.EventuallyGone(pids[m]) {
					t.Errorf("the %s (pid %d) outlived its call's %s", m, pids[m], tc.name)
				}
			}
			// A command the end failed to kill is not waited for forever.
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		})
	}
}

// What a finished command left running (`server &`) outlives the call,
// as on Linux, and ends with its scope (the session's end).
func TestALeftProcessEndsWithItsScope(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := Reaped(ctx, nil, os.Args[0], childArg, "leaver", dir)
	if err := Start(cmd); err != nil {
		t.Fatal(err)
	}
	sleeper := readPIDs(t, dir, "sleeper")["sleeper"]
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the command failed: %v", err)
	}
	cancel() // the call is over
	if n := ScopeOf(cmd).Kill(); n < 1 {
		t.Errorf("the kill of the scope found %d processes: the left one ended with the call", n)
	}
	if !testproc.EventuallyGone(sleeper) {
		t.Errorf("the left process %d outlived the kill of its scope", sleeper)
	}
}
