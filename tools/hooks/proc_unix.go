//go:build unix

package hooks

import (
	"os/exec"
	"syscall"
)

// inOwnGroup starts the hook in a new process group and makes cancellation
// kill the whole group, so a hook's children (a sleep, a pipeline) die with
// it instead of holding its output open.
func inOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
