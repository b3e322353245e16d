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

// killProcesses kills the server's process group, then every process of
// its scope: a daemon it forked out of its group (setsid, a double fork)
// ends with the server, not only with the session.
func killProcesses(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	lifetime.ScopeOf(cmd).Kill()
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
