//go:build unix && !linux

package lifetime

import "syscall"

// procAttr starts a process in a group of its own; parent-death signals
// are Linux's, and the scopes (read from /proc) are too, so elsewhere the
// group is what is killed.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
