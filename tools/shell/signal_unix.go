//go:build unix

package shell

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// signalName is the signal that killed a process (SIGSEGV), "" when it
// exited.
func signalName(st *os.ProcessState) string {
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return unix.SignalName(ws.Signal())
	}
	return ""
}
