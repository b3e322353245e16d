//go:build unix

package lifetime

import (
	"os/exec"
	"syscall"
)

// killPid sends SIGKILL to pid (a process group when negative).
func killPid(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }

// groupAttr starts a process in a process group of its own.
func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// joinServerJob is Windows' (a Job Object); Unix uses the watchdog.
func joinServerJob() bool { return false }

// killBelowSelf is Windows' (scopes are found by label here).
func killBelowSelf() int { return 0 }

// GroupAlive reports whether any process of the group pgid is still there.
func GroupAlive(pgid int) bool {
	return pgid > 0 && syscall.Kill(-pgid, 0) == nil
}

// resume is Windows' (a command there starts suspended until it is in its
// Job Object); here a started command already runs.
func resume(*exec.Cmd) error { return nil }
