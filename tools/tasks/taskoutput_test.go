package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testproc"
	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
)

func call(t *testing.T, ctx context.Context, tool tools.Tool, input string) (*tools.Result, error) {
	t.Helper()
	return tool.Execute(ctx, &tools.Call{Input: json.RawMessage(input), Host: tools.NoHost{}, Progress: tools.NoProgress{}})
}

func TestTaskOutput(t *testing.T) {
	m := NewManager(Options{})
	defer m.Close()
	done, _ := m.Start(bash("echo one; echo two; exit 4"))
	forever, _ := m.Start(bash("echo waiting; sleep 1000"))
	testproc.WaitFor(t, "output of the running task", func() bool { return forever.Output().Total() > 0 })
	tool := NewTaskOutput(m, settings.Defaults)
	tests := []struct {
		name    string
		input   string
		isError bool
		want    []string
	}{
		{"blocks until the end", `{"task_id":"` + done.ID() + `"}`, false, []string{"is failed with exit code 4", "one\ntwo"}},
		{"does not block", `{"task_id":"` + forever.ID() + `","block":false}`, false, []string{"is running", "waiting"}},
		{"gives up after timeout", `{"task_id":"` + forever.ID() + `","timeout":50}`, false, []string{"is running"}},
		{"unknown id lists ids", `{"task_id":"bash-99"}`, true, []string{"bash-1, bash-2"}},
		{"empty id", `{"task_id":""}`, true, []string{"task_id is empty"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := call(t, context.Background(), tool, tc.input)
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tc.isError {
				t.Errorf("isError %v: %s", res.IsError, res.Text())
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Text(), w) {
					t.Errorf("%q lacks %q", res.Text(), w)
				}
			}
		})
	}
}

func TestTaskOutputBlockEndsWithContext(t *testing.T) {
	m := NewManager(Options{})
	defer m.Close()
	task, _ := m.Start(bash("sleep 1000"))
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := call(t, ctx, NewTaskOutput(m, settings.Defaults), `{"task_id":"`+task.ID()+`","timeout":600000}`)
		errc <- err
	}()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

func TestTaskStop(t *testing.T) {
	m := NewManager(Options{})
	defer m.Close()
	a, _ := m.Start(bash("sleep 1000"))
	b, _ := m.Start(bash("sleep 1000"))
	ended, _ := m.Start(bash("true"))
	ended.Wait(context.Background())
	tool := NewTaskStop(m)
	tests := []struct {
		name    string
		input   string
		isError bool
		want    string
	}{
		{"by task_id", `{"task_id":"` + a.ID() + `"}`, false, "Stopped task " + a.ID()},
		{"by deprecated shell_id", `{"shell_id":"` + b.ID() + `"}`, false, "Stopped task " + b.ID()},
		{"already ended", `{"task_id":"` + ended.ID() + `"}`, true, "is completed"},
		{"stopped twice", `{"task_id":"` + a.ID() + `"}`, true, "is stopped"},
		{"no id", `{}`, true, "task_id is empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := call(t, context.Background(), tool, tc.input)
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tc.isError || !strings.Contains(res.Text(), tc.want) {
				t.Errorf("got (error %v) %q, want %q", res.IsError, res.Text(), tc.want)
			}
		})
	}
	for _, task := range []*Task{a, b} {
		if s := task.Snapshot(); s.Status != Stopped {
			t.Errorf("%s is %s", s.ID, s.Status)
		}
	}
}
