//go:build unix

package main

import (
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// pollableStdin returns the process's standard input in non-blocking mode,
// read through Go's network poller, when it is a pipe or a socket (how
// editors and MCP clients connect); otherwise stdin unchanged. A blocking
// read of a pipe holds an OS thread in the kernel between messages, and
// every message then costs a hand-off between threads: with the poller,
// toolhost mcp answered a ping 10% faster and a Read 9% faster (p90 14%),
// over 1,000 calls from a raw client. (toolhost serve does not use it: over
// its LSP stream, Reads right after a Bash got faster, 0.44 -> 0.37 ms, but
// Reads in a row slower, 0.27 -> 0.30 ms, in bench/stdio.) A terminal is
// never switched: its mode is shared with the shell that started toolhost.
//
// The reader is a duplicate of descriptor 0, never 0 itself: the server
// closes its reader when the session ends, and a closed 0 is the next
// descriptor the kernel hands out. The inotify descriptor a command's
// cgroup watch opened then got it, restore switched that descriptor to
// blocking, and the watch's drain blocked in read for good: the process
// hung at exit after a SIGTERM (TestEnvClearedProcessesEndWithTheServer).
// restore only touches 0, which stays the process's standard input.
func pollableStdin(stdin io.Reader) (r io.Reader, restore func()) {
	if stdin != io.Reader(os.Stdin) {
		return stdin, func() {}
	}
	fi, err := os.Stdin.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return stdin, func() {}
	}
	// Close-on-exec from the start: a command started meanwhile must not
	// inherit it.
	fd, err := unix.FcntlInt(0, unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return stdin, func() {}
	}
	// O_NONBLOCK belongs to the open pipe, which the duplicate shares
	// with 0; restore clears it through 0 for whoever reads it next.
	if err := syscall.SetNonblock(fd, true); err != nil {
		_ = syscall.Close(fd)
		return stdin, func() {}
	}
	// os.NewFile registers a non-blocking descriptor with the poller.
	return os.NewFile(uintptr(fd), "/dev/stdin"), func() { _ = syscall.SetNonblock(0, false) }
}
