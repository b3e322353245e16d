package shell

import (
	"context"
	"testing"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools/tasks"
	"github.com/toolhost/toolhost/workspace"
)

// BenchmarkSpawnFloor is `bash -c 'echo hi'` started the way Bash starts
// commands (own process group) and waited for: the floor under a Bash
// call, to compare with session's BenchmarkPipelineBash.
func BenchmarkSpawnFloor(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		out, err := tasks.Command(ctx, nil, "bash", "-c", "echo hi").Output()
		if err != nil || string(out) != "hi\n" {
			b.Fatalf("%q, %v", out, err)
		}
	}
}

// BenchmarkBashCall is a Bash call of `echo hi` through Execute: started
// afresh (no task manager, so no spare), in the spare started ahead of it
// (the spare's start waited for outside the timer, as a call that follows
// a model's turn finds it), and in a row (each call waits for the start
// the previous one began).
func BenchmarkBashCall(b *testing.B) {
	for _, mode := range []string{"fresh", "spare", "in a row"} {
		b.Run(mode, func(b *testing.B) {
			m := tasks.NewManager(tasks.Options{})
			defer m.Close()
			if mode == "fresh" {
				m = nil
			}
			bash := NewBash(workspace.New(b.TempDir()), settings.Defaults, m, nil)
			for b.Loop() {
				if mode == "spare" && bash.spares != nil {
					b.StopTimer()
					bash.spares.starts.Wait()
					b.StartTimer()
				}
				res, err := execTool(context.Background(), bash, map[string]any{"command": "echo hi"}, nil)
				if err != nil || res.Text() != "hi\n" {
					b.Fatalf("%v %q", err, res.Text())
				}
			}
		})
	}
}
