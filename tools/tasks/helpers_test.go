package tasks

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// waitFor polls cond until it holds, failing the test after 10 seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// processGone reports whether pid no longer runs (a zombie counts as gone:
// it runs nothing and waits only to be reaped).
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// The state follows the parenthesised command name.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X')
}

// readPid waits for a file holding a pid and returns the pid.
func readPid(t *testing.T, path string) int {
	t.Helper()
	var pid int
	waitFor(t, "pid file "+path, func() bool {
		data, err := os.ReadFile(path)
		if err != nil {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(data)))
		return err == nil && pid > 0
	})
	return pid
}

// recorder collects notifications.
type recorder struct {
	mu   sync.Mutex
	sent []TaskChanged
}

func (r *recorder) notify(_ context.Context, method string, params any) error {
	if method != MethodTaskChanged {
		return nil
	}
	r.mu.Lock()
	r.sent = append(r.sent, params.(TaskChanged))
	r.mu.Unlock()
	return nil
}

func (r *recorder) all() []TaskChanged {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]TaskChanged(nil), r.sent...)
}

// bash returns a Spec running script with bash.
func bash(script string) Spec {
	return Spec{Kind: "bash", Command: script, Name: "bash", Args: []string{"-c", script}}
}
