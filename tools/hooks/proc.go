package hooks

import (
	"context"
	"os/exec"

	"github.com/toolhost/toolhost/internal/lifetime"
)

// command returns the hook's command with env as its environment, in a
// process group and scope of its own, and in a cgroup, below a reaper or,
// on Windows, in a Job Object (internal/lifetime; it is started with
// lifetime.Start): the end of ctx kills all it started, and what it started
// that cleared its environment (env -i) ends with it, instead of holding
// its output open or outliving it.
func command(ctx context.Context, env []string, name string, args ...string) *exec.Cmd {
	return lifetime.Reaped(ctx, env, name, args...)
}
