package shell

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/websocket"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools/tasks"
)

// TestMonitor states Claude Code's Monitor: a command's output lines, or a
// WebSocket's messages, are events in a background task with a deadline.
func TestMonitor(t *testing.T) {
	b, m, _ := newBash(t, settings.Defaults)
	mon := NewMonitor(b)
	wait := func(id string) *tasks.Task {
		t.Helper()
		task, ok := m.Get(id)
		if !ok {
			t.Fatalf("no task %s", id)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := task.Wait(ctx); err != nil {
			t.Fatalf("task %s did not end: %v", id, err)
		}
		return task
	}

	res, err := execTool(context.Background(), mon, map[string]any{"description": "three events", "timeout_ms": 60000, "command": "for i in 1 2 3; do echo event $i; done"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := res.Structured.(MonitorOutput)
	if res.IsError || !strings.HasPrefix(out.TaskID, "monitor-") || out.TimeoutMs != 60000 || !strings.Contains(res.Text(), "TaskOutput") {
		t.Fatalf("got %q %+v", res.Text(), out)
	}
	task := wait(out.TaskID)
	if got := task.Output().Render(1000); got != "event 1\nevent 2\nevent 3\n" || task.Snapshot().Status != tasks.Completed {
		t.Errorf("events %q, status %s", got, task.Snapshot().Status)
	}

	// The deadline stops a watch that does not end by itself; above the
	// cap it is capped.
	res, _ = execTool(context.Background(), mon, map[string]any{"description": "ticks", "timeout_ms": 300, "command": "while true; do echo tick; sleep 0.05; done"}, nil)
	task = wait(res.Structured.(MonitorOutput).TaskID)
	if st := task.Snapshot(); st.Status != tasks.Failed || st.Failure != "timed out" || !strings.HasPrefix(task.Output().Render(1000), "tick\n") {
		t.Errorf("after the deadline: %+v %q", st, task.Output().Render(100))
	}
	res, _ = execTool(context.Background(), mon, map[string]any{"description": "long", "timeout_ms": 99e6, "command": "true"}, nil)
	if got := res.Structured.(MonitorOutput).TimeoutMs; got != MaxMonitorTimeout.Milliseconds() {
		t.Errorf("timeout %d, want the cap", got)
	}

	// A WebSocket's text messages are lines; binary ones a placeholder.
	srv := httptest.NewServer(websocket.Handler(func(c *websocket.Conn) {
		websocket.Message.Send(c, "build started")
		websocket.Message.Send(c, []byte{1, 2, 3})
		websocket.Message.Send(c, "build done\nall green")
	}))
	defer srv.Close()
	res, _ = execTool(context.Background(), mon, map[string]any{"description": "deploys", "timeout_ms": 60000, "ws": map[string]any{"url": "ws" + strings.TrimPrefix(srv.URL, "http")}}, nil)
	if res.IsError {
		t.Fatal(res.Text())
	}
	task = wait(res.Structured.(MonitorOutput).TaskID)
	if got := task.Output().Render(1000); got != "build started\n[binary message, 3 bytes]\nbuild done\nall green\n[the WebSocket closed]\n" {
		t.Errorf("WebSocket events %q", got)
	}

	for input, want := range map[string]string{
		`both`:    "not both",
		`neither`: "nothing to watch",
		`bad url`: "not a WebSocket URL",
	} {
		in := map[string]any{"description": "x", "timeout_ms": 1000}
		switch input {
		case "both":
			in["command"], in["ws"] = "true", map[string]any{"url": "ws://x"}
		case "bad url":
			in["ws"] = map[string]any{"url": "http://x"}
		}
		if res, _ := execTool(context.Background(), mon, in, nil); !res.IsError || !strings.Contains(res.Text(), want) {
			t.Errorf("%s: %q", input, res.Text())
		}
	}
}
