package tasks

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testproc"
)

func TestTaskLifecycle(t *testing.T) {
	tests := []struct {
		name     string
		script   string
		status   Status
		exitCode int
		output   string
	}{
		{"completes", "echo hello; echo err >&2", Completed, 0, "hello\nerr\n"},
		{"fails with exit code", "echo partial; exit 3", Failed, 3, "partial\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{}
			m := NewManager(Options{Notify: rec.notify})
			defer m.Close()
			task, err := m.Start(bash(tc.script))
			if err != nil {
				t.Fatal(err)
			}
			if err := task.Wait(context.Background()); err != nil {
				t.Fatal(err)
			}
			s := task.Snapshot()
			if s.Status != tc.status || s.ExitCode == nil || *s.ExitCode != tc.exitCode {
				t.Errorf("snapshot %+v", s)
			}
			if got := task.Output().Render(1000); got != tc.output {
				t.Errorf("output %q, want %q", got, tc.output)
			}
			testproc.WaitFor(t, "two notifications", func() bool { return len(rec.all()) == 2 })
			sent := rec.all()
			if sent[0].Status != Running || sent[0].TaskID != task.ID() || sent[0].Command != tc.script || sent[0].ExitCode != nil {
				t.Errorf("start notification %+v", sent[0])
			}
			if sent[1].Status != tc.status || sent[1].ExitCode == nil || *sent[1].ExitCode != tc.exitCode {
				t.Errorf("end notification %+v", sent[1])
			}
		})
	}
}

func TestTaskIDsAndList(t *testing.T) {
	m := NewManager(Options{})
	defer m.Close()
	a, _ := m.Start(bash("true"))
	b, _ := m.Start(Spec{Command: "x", Name: "true"})
	if a.ID() != "bash-1" || b.ID() != "task-2" {
		t.Errorf("ids %s, %s", a.ID(), b.ID())
	}
	a.Wait(context.Background())
	b.Wait(context.Background())
	if got := m.IDs(false); !slices.Equal(got, []string{"bash-1", "task-2"}) {
		t.Errorf("ids %v", got)
	}
	if got := m.IDs(true); len(got) != 0 {
		t.Errorf("running %v", got)
	}
}

func TestTaskStopKillsProcessGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	rec := &recorder{}
	m := NewManager(Options{})
	defer m.Close()
	// The task never ends by itself; its child would outlive a plain kill.
	spec := bash("sleep 1000 & echo $! > " + pidFile + "; wait")
	spec.Notify = rec.notify
	task, err := m.Start(spec)
	if err != nil {
		t.Fatal(err)
	}
	child := testproc.ReadPID(t, pidFile)
	snap, err := m.Stop(context.Background(), task.ID())
	if err != nil {
		t.Fatal(err)
	}
	if snap.Status != Stopped {
		t.Errorf("status %s", snap.Status)
	}
	testproc.WaitFor(t, "the child to die", func() bool { return testproc.Gone(child) })
	testproc.WaitFor(t, "the stop notification", func() bool { return len(rec.all()) == 2 })
	if last := rec.all()[1]; last.Status != Stopped {
		t.Errorf("notification %+v", last)
	}
}

func TestTaskTimeout(t *testing.T) {
	m := NewManager(Options{})
	defer m.Close()
	spec := bash("sleep 1000")
	spec.Timeout = 100 * time.Millisecond
	task, err := m.Start(spec)
	if err != nil {
		t.Fatal(err)
	}
	task.Wait(context.Background())
	s := task.Snapshot()
	if s.Status != Failed || s.Failure != "timed out" || s.ExitCode != nil {
		t.Errorf("snapshot %+v", s)
	}
}

func TestTaskFloodStaysBounded(t *testing.T) {
	m := NewManager(Options{MaxOutputBytes: 64 << 10})
	defer m.Close()
	task, err := m.Start(bash("yes flood"))
	if err != nil {
		t.Fatal(err)
	}
	testproc.WaitFor(t, "8 MiB of output", func() bool { return task.Output().Total() > 8<<20 })
	if _, err := m.Stop(context.Background(), task.ID()); err != nil {
		t.Fatal(err)
	}
	o := task.Output()
	o.mu.Lock()
	kept := len(o.head) + len(o.tail)
	o.mu.Unlock()
	if kept > 2*(64<<10) {
		t.Errorf("keeps %d bytes", kept)
	}
	r := o.Render(1000)
	if !strings.HasPrefix(r, "flood\nflood") || !strings.Contains(r, "bytes of output cut") {
		t.Errorf("render %q", r)
	}
}

func TestManagerCloseKillsEverything(t *testing.T) {
	dir := t.TempDir()
	m := NewManager(Options{})
	running, err := m.Start(bash("sleep 1000 & echo $! > " + filepath.Join(dir, "a.pid") + "; wait"))
	if err != nil {
		t.Fatal(err)
	}
	// This task ends at once but leaves a process in its group.
	leaver, err := m.Start(bash("sleep 1000 & echo $! > " + filepath.Join(dir, "b.pid")))
	if err != nil {
		t.Fatal(err)
	}
	a, b := testproc.ReadPID(t, filepath.Join(dir, "a.pid")), testproc.ReadPID(t, filepath.Join(dir, "b.pid"))
	leaver.Wait(context.Background())
	// And a foreground command's leftover group, adopted.
	fg := Command(context.Background(), nil, "bash", "-c", "sleep 1000 & echo $! > "+filepath.Join(dir, "c.pid"))
	if err := fg.Run(); err != nil {
		t.Fatal(err)
	}
	c := testproc.ReadPID(t, filepath.Join(dir, "c.pid"))
	m.AdoptGroup(fg.Process.Pid)

	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if s := running.Snapshot(); s.Status != Stopped {
		t.Errorf("running task ended as %s", s.Status)
	}
	for _, pid := range []int{a, b, c} {
		testproc.WaitFor(t, "leftover processes to die", func() bool { return testproc.Gone(pid) })
	}
	if _, err := m.Start(bash("true")); !errors.Is(err, ErrClosed) {
		t.Errorf("start after close: %v", err)
	}
}

func TestSessionNotifierWins(t *testing.T) {
	session, call := &recorder{}, &recorder{}
	m := NewManager(Options{})
	defer m.Close()
	m.SetNotifier(session.notify)
	spec := bash("true")
	spec.Notify = call.notify
	task, _ := m.Start(spec)
	task.Wait(context.Background())
	testproc.WaitFor(t, "notifications", func() bool { return len(session.all()) == 2 })
	if len(call.all()) != 0 {
		t.Errorf("the call's host was notified too: %v", call.all())
	}
}
