//go:build linux

package shell

import (
	"context"
	"errors"
	"syscall"
	"testing"

	"github.com/toolhost/toolhost/internal/testproc"
	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools/tasks"
)

// Processes a Bash command started that cleared their environment (env -i)
// and left its process group end with the call, however it ends.
func TestBashEndsEnvClearedProcesses(t *testing.T) {
	tests := []struct {
		name string
		// end starts the command (script) and ends it as the test says; it
		// returns once the processes wrote their pids to dir.
		end func(t *testing.T, b *Bash, m *tasks.Manager, dir, script string) map[string]int
	}{
		{"the call returns", func(t *testing.T, b *Bash, _ *tasks.Manager, dir, script string) map[string]int {
			res, err := execTool(context.Background(), b, map[string]any{"command": script + "\necho done"}, nil)
			if err != nil || res.IsError || res.Text() != "done\n" {
				t.Fatalf("got (error %v) %q, %v", res.IsError, res.Text(), err)
			}
			return testproc.EnvClearedPIDs(t, dir)
		}},
		{"the call is cancelled", func(t *testing.T, b *Bash, _ *tasks.Manager, dir, script string) map[string]int {
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() {
				_, err := execTool(ctx, b, map[string]any{"command": script + "\nsleep 1000"}, nil)
				errc <- err
			}()
			pids := testproc.EnvClearedPIDs(t, dir)
			cancel()
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Errorf("got %v, want context.Canceled", err)
			}
			return pids
		}},
		{"a background task ends", func(t *testing.T, b *Bash, m *tasks.Manager, dir, script string) map[string]int {
			task := startInBackground(t, b, m, script)
			task.Wait(context.Background())
			return testproc.EnvClearedPIDs(t, dir)
		}},
		{"a background task is stopped", func(t *testing.T, b *Bash, m *tasks.Manager, dir, script string) map[string]int {
			task := startInBackground(t, b, m, script+"\nsleep 1000")
			pids := testproc.EnvClearedPIDs(t, dir)
			res, err := execTool(context.Background(), tasks.NewTaskStop(m), map[string]any{"task_id": task.ID()}, nil)
			if err != nil || res.IsError {
				t.Fatalf("TaskStop: (error %v) %q, %v", res.IsError, res.Text(), err)
			}
			return pids
		}},
		{"the session ends", func(t *testing.T, b *Bash, m *tasks.Manager, dir, script string) map[string]int {
			startInBackground(t, b, m, script+"\nsleep 1000")
			pids := testproc.EnvClearedPIDs(t, dir)
			if err := m.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			return pids
		}},
	}
	for _, tc := range tests {
		// A call after the first runs in the bash started ahead of it
		// (spare.go), which must end the same way.
		for _, warm := range []bool{false, true} {
			name := tc.name
			if warm {
				name += ", after a first call"
			}
			t.Run(name, func(t *testing.T) {
				b, m, dir := newBash(t, settings.Defaults)
				if warm {
					needSpares(t)
					run(t, b, "true")
					readySpare(t, b)
				}
				pids := tc.end(t, b, m, dir, testproc.EnvClearingScript(dir))
				for name, pid := range pids {
					if !testproc.EventuallyGone(pid) {
						t.Errorf("the %s process %d outlived its call", name, pid)
						_ = syscall.Kill(pid, syscall.SIGKILL)
					}
				}
			})
		}
	}
}

// startInBackground runs script as a Bash background task.
func startInBackground(t *testing.T, b *Bash, m *tasks.Manager, script string) *tasks.Task {
	t.Helper()
	res, err := execTool(context.Background(), b, map[string]any{"command": script, "run_in_background": true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	task, ok := m.Get(res.Structured.(BashOutput).BackgroundTaskID)
	if !ok {
		t.Fatalf("no background task: %q", res.Text())
	}
	return task
}
