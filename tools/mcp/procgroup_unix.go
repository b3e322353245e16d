//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts the command in a process group of its own so that
// its children can be ended with it.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the process group led by pid.
func killGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}
