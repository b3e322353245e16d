//go:build !unix

package hooks

import (
	"context"
	"os/exec"
)

// command leaves the default cancellation (kill the process) where there
// are no process groups.
func command(ctx context.Context, env []string, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	return cmd
}
