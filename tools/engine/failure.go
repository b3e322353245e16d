package engine

import (
	"errors"
	"syscall"
)

// hostFailureAdvice is what to do next after a tool's infrastructure
// failure (a Go error from Execute). Most are worth one more try; a full
// disk, a read-only file system or a refused permission fail the same way
// until the user changes something, and the model should say so instead
// of retrying.
func hostFailureAdvice(err error) string {
	switch {
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return "The disk (or the user's quota) is full: retrying fails the same way until space is freed. Tell the user"
	case errors.Is(err, syscall.EROFS):
		return "The file system there is mounted read-only: retrying fails the same way. Tell the user, or write somewhere else"
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		return "The system refused the access (permissions of the file or its folder): retrying fails the same way. Tell the user, or use another path"
	}
	return "This is a failure of the tool host, not of the input; retrying may help"
}
