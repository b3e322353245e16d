package shell

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Under bash.sandbox a Monitor's command is confined as Bash's are: it
// writes inside the workspace and nowhere else.
func TestMonitorCommandsRunInTheSandbox(t *testing.T) {
	outside := sandboxOutside(t)
	b, m, dir := newBash(t, with(sandboxOn))
	target := filepath.Join(outside, "monitor.txt")
	command := "echo in > inside.txt; echo out > " + target + " && echo wrote-outside; echo end"
	res, err := execTool(context.Background(), NewMonitor(b), map[string]any{"description": "writes", "timeout_ms": 60000, "command": command}, nil)
	if err != nil || res.IsError {
		t.Fatalf("Monitor: %v %q", err, res.Text())
	}
	task, ok := m.Get(res.Structured.(MonitorOutput).TaskID)
	if !ok {
		t.Fatal("no monitor task")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := task.Wait(ctx); err != nil {
		t.Fatalf("the monitor did not end: %v", err)
	}
	out := task.Output().Render(10000)
	if _, err := os.Stat(target); err == nil || strings.Contains(out, "wrote-outside") {
		t.Errorf("the monitor's command wrote outside the workspace under bash.sandbox: %q", out)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "inside.txt")); string(got) != "in\n" || !strings.Contains(out, "end") {
		t.Errorf("inside the workspace the command wrote %q (events %q, status %s)", got, out, task.Snapshot().Status)
	}
}
