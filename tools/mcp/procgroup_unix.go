//go:build unix

package mcp

import (
	"os/exec"
	"syscall"

	"github.com/toolhost/toolhost/internal/lifetime"
)

// setProcessGroup starts the command in a process group and scope of its
// own (internal/lifetime), so that its children can be ended with it and
// none outlives the server.
func setProcessGroup(cmd *exec.Cmd) {
	lifetime.Label(cmd, cmd.Env)
}

// killGroup kills the process group led by pid.
func killGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}
