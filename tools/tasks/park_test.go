package tasks

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestFinishedTasksHoldNoOutputInMemory: a session that runs many tasks
// with big outputs does not keep them all in memory: once a task ends its
// output moves to a private file, TaskOutput still shows the same start
// and end, and the files go with the manager.
func TestFinishedTasksHoldNoOutputInMemory(t *testing.T) {
	state := t.TempDir()
	t.Setenv("TOOLHOST_STATE_DIR", state)
	m := NewManager(Options{MaxOutputBytes: 256 << 10})
	const tasks = 8
	var started []*Task
	for range tasks {
		// 2 MiB each: the first line, filler, the last line.
		task, err := m.Start(bash(`echo FIRST; head -c 2097152 /dev/zero | tr '\0' x; echo; echo LAST`))
		if err != nil {
			t.Fatal(err)
		}
		started = append(started, task)
	}
	for _, task := range started {
		if err := task.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	total := 0
	for _, task := range started {
		total += task.Output().retained()
		r := task.Output().Render(1000)
		if !strings.HasPrefix(r, "FIRST\n") || !strings.HasSuffix(r, "LAST\n") || !strings.Contains(r, "bytes of output cut") {
			t.Errorf("%s renders %.80q…%q", task.ID(), r, r[max(0, len(r)-40):])
		}
	}
	if total != 0 {
		t.Errorf("%d finished tasks still hold %d bytes of output in memory", tasks, total)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(state + "/task-output"); len(entries) != 0 {
		t.Errorf("the parked outputs outlived the manager: %v", entries)
	}
}
