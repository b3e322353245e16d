//go:build unix

package lifetime

import (
	"errors"
	"syscall"
)

// Alive reports whether a process with this id exists (another user's
// included). A zombie counts as existing.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
