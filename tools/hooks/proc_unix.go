//go:build unix

package hooks

import (
	"os/exec"

	"github.com/toolhost/toolhost/internal/lifetime"
)

// inOwnGroup starts the hook in a process group and scope of its own
// (internal/lifetime) and makes cancellation kill both, so a hook's
// children (a sleep, a pipeline, a daemon) die with it instead of holding
// its output open or outliving it.
func inOwnGroup(cmd *exec.Cmd) {
	lifetime.Prepare(cmd, cmd.Env)
}
