package shell

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
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

// processGone reports whether pid no longer runs (zombies count as gone).
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X')
}

// readPid waits for a file holding a pid and returns it.
func readPid(t *testing.T, path string) int {
	t.Helper()
	var pid int
	waitFor(t, "pid file", func() bool {
		data, err := os.ReadFile(path)
		if err != nil {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(data)))
		return err == nil && pid > 0
	})
	return pid
}

// progressRecorder records progress reports.
type progressRecorder struct {
	mu      sync.Mutex
	reports []string
}

func (p *progressRecorder) Report(m string) {
	p.mu.Lock()
	p.reports = append(p.reports, m)
	p.mu.Unlock()
}

func (p *progressRecorder) has(s string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.reports {
		if strings.Contains(r, s) {
			return true
		}
	}
	return false
}

// exec runs a tool with ctx and a progress recorder.
func execTool(ctx context.Context, tool tools.Tool, input any, p tools.Progress) (*tools.Result, error) {
	raw, _ := json.Marshal(input)
	if p == nil {
		p = tools.NoProgress{}
	}
	return tool.Execute(ctx, &tools.Call{Input: raw, Host: tools.NoHost{}, Progress: p})
}

// with returns a settings function with changes applied to the defaults.
func with(change func(*settings.Settings)) func() *settings.Settings {
	s := settings.Defaults()
	change(s)
	return func() *settings.Settings { return s }
}
