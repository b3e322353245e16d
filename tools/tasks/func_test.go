package tasks

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testproc"
)

func TestStartFunc(t *testing.T) {
	tests := []struct {
		name    string
		timeout time.Duration
		// stop stops the task with TaskStop's Manager.Stop once it runs.
		stop    bool
		f       Func
		status  Status
		failure string
		output  string
	}{
		{"completes", 0, false, func(_ context.Context, out io.Writer) error {
			io.WriteString(out, "the report")
			return nil
		}, Completed, "", "the report"},
		{"fails with the error as the reason", 0, false, func(_ context.Context, out io.Writer) error {
			io.WriteString(out, "partial")
			return errors.New("the endpoint answered 500")
		}, Failed, "the endpoint answered 500", "partial"},
		{"a panic fails it", 0, false, func(context.Context, io.Writer) error {
			panic("boom")
		}, Failed, "the task crashed: boom", ""},
		{"stopped", 0, true, func(ctx context.Context, _ io.Writer) error {
			<-ctx.Done()
			return ctx.Err()
		}, Stopped, "", ""},
		{"timed out", time.Millisecond, false, func(ctx context.Context, _ io.Writer) error {
			<-ctx.Done()
			return ctx.Err()
		}, Failed, "timed out", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{}
			m := NewManager(Options{Notify: rec.notify})
			defer m.Close()
			task, err := m.StartFunc(Spec{Kind: "agent", Command: "Find the bug", Timeout: tc.timeout}, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			if task.ID() != "agent-1" {
				t.Errorf("id %q, want agent-1", task.ID())
			}
			if tc.stop {
				if _, err := m.Stop(t.Context(), task.ID()); err != nil {
					t.Fatal(err)
				}
			}
			if err := task.Wait(t.Context()); err != nil {
				t.Fatal(err)
			}
			s := task.Snapshot()
			if s.Status != tc.status || s.Failure != tc.failure || s.ExitCode != nil || s.Kind != "agent" || s.Command != "Find the bug" {
				t.Errorf("snapshot %+v, want status %s, failure %q", s, tc.status, tc.failure)
			}
			if got := task.Output().Render(1000); got != tc.output {
				t.Errorf("output %q, want %q", got, tc.output)
			}
			testproc.WaitFor(t, "two notifications", func() bool { return len(rec.all()) == 2 })
			sent := rec.all()
			if sent[0].Status != Running || sent[0].TaskID != "agent-1" || sent[1].Status != tc.status {
				t.Errorf("notifications %+v", sent)
			}
		})
	}
}

func TestCloseStopsFuncTasks(t *testing.T) {
	m := NewManager(Options{})
	started := make(chan struct{})
	task, err := m.StartFunc(Spec{Kind: "agent"}, func(ctx context.Context, _ io.Writer) error {
		close(started)
		<-ctx.Done()
		return ctx.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if s := task.Snapshot(); s.Status != Stopped {
		t.Errorf("status %s after Close, want stopped", s.Status)
	}
	if _, err := m.StartFunc(Spec{}, func(context.Context, io.Writer) error { return nil }); !errors.Is(err, ErrClosed) {
		t.Errorf("StartFunc after Close: %v, want ErrClosed", err)
	}
}
