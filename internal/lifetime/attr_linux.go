package lifetime

import "syscall"

// procAttr starts a process in a group of its own that the kernel kills
// when its parent (the server) dies.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
