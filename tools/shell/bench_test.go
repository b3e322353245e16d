package shell

import (
	"context"
	"testing"

	"github.com/toolhost/toolhost/tools/tasks"
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
