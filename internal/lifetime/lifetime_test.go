package lifetime

import (
	"context"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolhost/toolhost/internal/testproc"
)

// Cancelling a command ends every process it started, those that left its
// process group and session included.
func TestCancelEndsEscapedDescendants(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := Command(ctx, nil, "bash", "-c", testproc.EscapingScript(dir))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pids := testproc.EscapedPIDs(t, dir)
	cancel()
	_ = cmd.Wait()
	for name, pid := range pids {
		if !testproc.EventuallyGone(pid) {
			t.Errorf("the %s process %d outlived its command's cancel", name, pid)
		}
	}
}

// KillScopes ends what a finished command left, wherever it went, and
// leaves other scopes alone.
func TestKillScopesLeavesOthers(t *testing.T) {
	dirA, dirB := t.TempDir(), t.TempDir()
	a := Command(context.Background(), nil, "bash", "-c", testproc.EscapingScript(dirA))
	b := Command(context.Background(), nil, "bash", "-c", testproc.EscapingScript(dirB))
	for _, c := range []*exec.Cmd{a, b} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	pa, pb := testproc.EscapedPIDs(t, dirA), testproc.EscapedPIDs(t, dirB)
	if n := KillScopes([]Scope{ScopeOf(a)}); n < 3 {
		t.Errorf("KillScopes killed %d processes, want at least 3", n)
	}
	for name, pid := range pa {
		if !testproc.EventuallyGone(pid) {
			t.Errorf("the %s process %d of the killed scope is still there", name, pid)
		}
	}
	for name, pid := range pb {
		if testproc.Gone(pid) {
			t.Errorf("the %s process %d of another scope was killed", name, pid)
		}
	}
	ScopeOf(b).Kill()
	_, _ = a.Process.Wait()
	_, _ = b.Process.Wait()
	for _, pid := range pb {
		testproc.EventuallyGone(pid)
	}
}

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

// A process caught in the middle of an exec reads an empty environment for
// a moment; a kill judges it again instead of ending with it unseen (the
// server killed just as a command started a child left that child running).
func TestKillWaitsForAProcessMidExec(t *testing.T) {
	s := NewScope()
	cmd := exec.Command("sleep", "1000")
	cmd.Env = s.Env(nil)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	pid := cmd.Process.Pid
	// The child's first reads come back empty, as during its exec.
	real := readEnviron
	reads := 0
	readEnviron = func(p int) ([]byte, error) {
		if p == pid {
			if reads++; reads <= 3 {
				return nil, nil
			}
		}
		return real(p)
	}
	t.Cleanup(func() { readEnviron = real })
	if n := s.Kill(); n != 1 {
		t.Fatalf("the kill killed %d processes, want the child", n) // the cleanup ends it
	}
	_ = cmd.Wait()
	if cmd.ProcessState == nil || cmd.ProcessState.Success() {
		t.Errorf("the child was not killed: %v", cmd.ProcessState)
	}
}

// TestKillAllSearchesOnlyOnceAScopeWasMade: the end of a server that
// started no command reads no process's environment; once a scope was made,
// the kill searches for it.
func TestKillAllSearchesOnlyOnceAScopeWasMade(t *testing.T) {
	made := scopes.Load()
	t.Cleanup(func() { scopes.Store(made) })
	real := readEnviron
	t.Cleanup(func() { readEnviron = real })
	var reads atomic.Int64
	readEnviron = func(p int) ([]byte, error) {
		reads.Add(1)
		return real(p)
	}
	for _, tt := range []struct {
		scopes    uint64
		wantReads bool
	}{
		{0, false},
		{1, true},
	} {
		scopes.Store(tt.scopes)
		reads.Store(0)
		killScopes()
		if got := reads.Load() > 0; got != tt.wantReads {
			t.Errorf("with %d scopes made: %d environments read, want reads: %v", tt.scopes, reads.Load(), tt.wantReads)
		}
	}
}
