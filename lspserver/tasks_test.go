package lspserver

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolhost/toolhost/session"
)

// TestBackgroundTasksOverTheEditorConnection: Bash run_in_background
// reports its task in toolhost/taskChanged (running, then completed),
// TaskOutput reads its output, and a task still running when the editor
// shuts the session down is killed.
func TestBackgroundTasksOverTheEditorConnection(t *testing.T) {
	root := t.TempDir()
	c := startServer(t, Options{OnSession: func(*session.Session) {}})
	c.initialize(root, nil)
	c.request(1, "toolhost/setPermissionMode", map[string]any{"mode": "bypassPermissions"})
	if m := c.nextNotLog(); m["error"] != nil {
		t.Fatalf("setPermissionMode: %v", m)
	}

	c.request(2, "toolhost/callTool", map[string]any{"name": "Bash", "input": map[string]any{
		"command": "echo out-from-task", "run_in_background": true, "description": "Print a line",
	}})
	var taskID string
	statuses := map[string]bool{}
	gotResult := false
	for !gotResult || !statuses["completed"] {
		m := c.nextNotLog()
		switch {
		case m["id"] == float64(2):
			if text := resultText(t, m); strings.Contains(text, "Error:") {
				t.Fatalf("background Bash failed: %s", text)
			}
			gotResult = true
		case m["method"] == "toolhost/taskChanged":
			p := m["params"].(map[string]any)
			if taskID == "" {
				taskID = p["taskId"].(string)
			} else if p["taskId"] != taskID {
				t.Fatalf("a second task id %v (first %s)", p["taskId"], taskID)
			}
			statuses[p["status"].(string)] = true
		}
	}
	if !statuses["running"] {
		t.Errorf("no running notification before completed: %v", statuses)
	}

	c.request(3, "toolhost/callTool", map[string]any{"name": "TaskOutput", "input": map[string]any{"task_id": taskID, "block": true, "timeout": 10000}})
	for {
		m := c.nextNotLog()
		if m["id"] == float64(3) {
			if text := resultText(t, m); !strings.Contains(text, "out-from-task") {
				t.Fatalf("TaskOutput = %q", text)
			}
			break
		}
	}

	pidFile := filepath.Join(root, "pid")
	c.request(4, "toolhost/callTool", map[string]any{"name": "Bash", "input": map[string]any{
		"command": "echo $$ > pid; exec sleep 300", "run_in_background": true,
	}})
	for {
		if m := c.nextNotLog(); m["id"] == float64(4) {
			break
		}
	}
	pid := waitPID(t, pidFile)
	c.request(5, "shutdown", nil)
	for {
		if m := c.nextNotLog(); m["id"] == float64(5) {
			break
		}
	}
	c.notify("exit", nil)
	if err := <-c.served; err != nil {
		t.Fatalf("Serve after shutdown and exit: %v", err)
	}
	if !processGone(pid) {
		t.Errorf("the background task's process %d outlived the session", pid)
	}
}

// waitPID waits for a file holding a pid (written by a background command)
// and returns it; the deadline only keeps a broken task from hanging the test.
func waitPID(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, err := os.ReadFile(path)
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && perr == nil && pid > 0 {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// processGone reports whether pid has ended (a zombie counts as ended).
// The session kills the group before Serve returns, but the kernel may
// still be tearing the process down, so it waits a little.
func processGone(pid int) bool {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if syscall.Kill(pid, 0) != nil {
			return true
		}
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return true
		}
		s := string(stat)
		if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X') {
			return true
		}
		time.Sleep(5 * time.Millisecond)
	}
	return false
}
