//go:build unix

package mcp

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
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

// processGone reports whether pid has exited (a zombie waiting to be
// reaped counts as exited).
func processGone(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X')
}
