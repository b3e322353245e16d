//go:build unix

package execjail

import "syscall"

// enterFD makes the open folder fd the working folder.
func enterFD(fd int) error { return syscall.Fchdir(fd) }

func closeFD(fd int) { syscall.Close(fd) }
