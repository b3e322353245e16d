//go:build linux

package main

import (
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// stdinChildEnv makes the test binary play the server whose stdin is a
// pipe (TestClosedStdinLeavesLaterDescriptorsAlone).
const stdinChildEnv = "TOOLHOST_TEST_STDIN_CHILD"

// A server that closed its stdin reader (its session ended) and then
// restored stdin leaves descriptors opened in between as they were: on
// exit, a cgroup watch's non-blocking inotify descriptor was given the
// number 0, restore made it blocking, and the server hung in its read.
func TestClosedStdinLeavesLaterDescriptorsAlone(t *testing.T) {
	if os.Getenv(stdinChildEnv) == "1" {
		os.Stdout.WriteString(closeStdinThenOpen())
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestClosedStdinLeavesLaterDescriptorsAlone$")
	cmd.Env = append(os.Environ(), stdinChildEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the child failed: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "non-blocking" {
		t.Errorf("a descriptor opened after stdin's reader was closed is %s after restore; want it left non-blocking", got)
	}
}

// closeStdinThenOpen does what the server does at its end: close the
// stdin reader, open a non-blocking descriptor (the cgroup watch's
// inotify), restore stdin; it says whether that descriptor is still
// non-blocking.
func closeStdinThenOpen() string {
	r, restore := pollableStdin(os.Stdin)
	if r == io.Reader(os.Stdin) {
		return "stdin was not made pollable"
	}
	r.(io.Closer).Close()
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return "no inotify: " + err.Error()
	}
	defer unix.Close(fd)
	restore()
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return err.Error()
	}
	if flags&unix.O_NONBLOCK == 0 {
		return "blocking"
	}
	return "non-blocking"
}
