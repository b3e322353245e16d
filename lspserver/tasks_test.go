package lspserver

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testproc"
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
	pid := testproc.ReadPID(t, pidFile)
	c.request(5, "shutdown", nil)
	for {
		if m := c.nextNotLog(); m["id"] == float64(5) {
			break
		}
	}
	c.notify("exit", nil)
	if err := c.awaitServed(); err != nil {
		t.Fatalf("Serve after shutdown and exit: %v", err)
	}
	if !testproc.EventuallyGone(pid) {
		t.Errorf("the background task's process %d outlived the session", pid)
	}
}
