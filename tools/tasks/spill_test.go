package tasks

import (
	"context"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
)

// TestFinishedTasksHoldNoMemory: a finished task's output moves to a file
// in the spill folder, so a session that ran many chatty tasks holds a
// bounded amount of memory (150 tasks of 4 MB once kept +420 MB), while
// the output reads as before; Close removes the files.
func TestFinishedTasksHoldNoMemory(t *testing.T) {
	const tasks, perTask = 60, 4 << 20
	dir := t.TempDir()
	m := NewManager(Options{MaxOutputBytes: 1 << 20, SpillDir: dir})
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	chunk := []byte(strings.Repeat("x", 1<<16-1) + "\n")
	var last *Task
	for i := range tasks {
		task, err := m.StartFunc(Spec{Kind: "func"}, func(_ context.Context, out io.Writer) error {
			for n := 0; n < perTask; n += len(chunk) {
				if _, err := out.Write(chunk); err != nil {
					return err
				}
			}
			_, err := io.WriteString(out, "the end "+string(rune('A'+i%26))+"\n")
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := task.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
		last = task
	}
	grown := int64(heap()) - int64(before)
	t.Logf("%d finished tasks of %d MB each: heap grew by %d KB", tasks, perTask>>20, grown>>10)
	// In memory each would keep its 1 MB cap: 60 MB. Spilled, what is left
	// is bookkeeping.
	if grown > 8<<20 {
		t.Errorf("heap grew by %d MB after %d finished tasks; their output should be on disk", grown>>20, tasks)
	}
	out := last.Output().Render(4096)
	if !strings.HasSuffix(out, "the end "+string(rune('A'+(tasks-1)%26))+"\n") || !strings.HasPrefix(out, "xxx") {
		t.Errorf("the spilled output does not read back: %q … %q", out[:20], out[len(out)-40:])
	}
	if files, _ := os.ReadDir(dir); len(files) != tasks {
		t.Errorf("%d files in the spill folder, want %d", len(files), tasks)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("%d files left after Close", len(files))
	}
}
