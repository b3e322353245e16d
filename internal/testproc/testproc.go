// Package testproc helps tests that watch the processes toolhost starts and
// kills: whether a process is gone, pid files written by test commands, and
// waiting for a condition with a deadline. The deadlines only keep a broken
// test from hanging; no test waits for time to pass.
package testproc

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// deadline bounds every wait of this package.
const deadline = 10 * time.Second

// WaitFor polls cond until it holds, failing t after the deadline.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	if !poll(cond) {
		t.Fatalf("timed out waiting for %s", what)
	}
}

// poll reports whether cond held before the deadline.
func poll(cond func() bool) bool {
	end := time.Now().Add(deadline)
	for !cond() {
		if time.Now().After(end) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

// EventuallyGone reports whether pid is gone before the deadline. A SIGKILL
// to a process group is delivered asynchronously: a grandchild may still be
// on its way out when the process the test waited for has been reaped.
func EventuallyGone(pid int) bool {
	return poll(func() bool { return Gone(pid) })
}

// ReadPID waits for path to hold a pid (written by a command under test)
// and returns it.
func ReadPID(t testing.TB, path string) int {
	t.Helper()
	var pid int
	WaitFor(t, "a pid in "+path, func() bool {
		data, err := os.ReadFile(path)
		if err != nil {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(data)))
		return err == nil && pid > 0
	})
	return pid
}

// escapeNames name the pid files EscapingScript writes.
var escapeNames = []string{"setsid", "double", "child"}

// EscapingScript is a shell script whose processes leave the command's
// process group every way a shell can — a new session (setsid), a double
// fork into a new session, a plain background child — each writing its pid
// to dir; then it waits for them.
func EscapingScript(dir string) string {
	return strings.Join([]string{
		"setsid sleep 1000 & echo $! > " + filepath.Join(dir, "setsid.pid"),
		"( setsid sh -c 'echo $$ > " + filepath.Join(dir, "double.pid") + "; exec sleep 1000' & ) &",
		"sleep 1000 & echo $! > " + filepath.Join(dir, "child.pid"),
		"wait",
	}, "\n")
}

// EscapedPIDs waits for the pids EscapingScript writes and returns them by
// how the process left.
func EscapedPIDs(t testing.TB, dir string) map[string]int {
	t.Helper()
	pids := map[string]int{}
	for _, name := range escapeNames {
		pids[name] = ReadPID(t, filepath.Join(dir, name+".pid"))
	}
	return pids
}

// envClearedNames name the pid files EnvClearingScript writes.
var envClearedNames = []string{"env-setsid", "env-orphan"}

// EnvClearingScript is a shell script whose processes leave both the
// command's process group and its environment (env -i): one in a new
// session, one a background child of a shell that exits at once (an orphan).
// Each writes its pid to dir; the script returns once both have.
func EnvClearingScript(dir string) string {
	setsid := filepath.Join(dir, "env-setsid.pid")
	orphan := filepath.Join(dir, "env-orphan.pid")
	return strings.Join([]string{
		"env -i setsid sh -c 'echo $$ > " + setsid + "; exec sleep 1000' >/dev/null 2>&1 &",
		"env -i sh -c 'sh -c \"echo \\$\\$ > " + orphan + "; exec sleep 1000\" &' >/dev/null 2>&1",
		"while [ ! -s " + setsid + " ] || [ ! -s " + orphan + " ]; do sleep 0.01; done",
	}, "\n")
}

// EnvClearedPIDs waits for the pids EnvClearingScript writes and returns
// them by how the process left.
func EnvClearedPIDs(t testing.TB, dir string) map[string]int {
	t.Helper()
	pids := map[string]int{}
	for _, name := range envClearedNames {
		pids[name] = ReadPID(t, filepath.Join(dir, name+".pid"))
	}
	return pids
}

// EnvOf reads a process's environment (empty when it cannot be read).
func EnvOf(pid int) string {
	env, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	return string(env)
}
