package shell

import (
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools/tasks"
	"github.com/toolhost/toolhost/workspace"
)

func TestBashBackgroundStdin(t *testing.T) {
	m := tasks.NewManager(tasks.Options{})
	t.Cleanup(func() { m.Close() })
	on := with(func(s *settings.Settings) { s.Bash.BackgroundStdin = true })
	b := NewBash(workspace.New(t.TempDir()), on, m, nil)

	if strings.Contains(string(NewBash(nil, nil, m, nil).InputSchema()), `"stdin"`) {
		t.Error("stdin is in the default schema, which must stay Claude Code's")
	}
	if !strings.Contains(string(b.InputSchema()), `"stdin"`) {
		t.Error("bash.backgroundStdin did not add stdin to the schema")
	}

	res, err := execTool(t.Context(), b, map[string]any{"command": "tr a-z A-Z; echo end", "run_in_background": true, "stdin": "hello from stdin\n"}, nil)
	if err != nil || res.IsError {
		t.Fatalf("%v %s", err, res.Text())
	}
	task, ok := m.Get(res.Structured.(BashOutput).BackgroundTaskID)
	if !ok {
		t.Fatalf("no task: %s", res.Text())
	}
	select {
	case <-task.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("the command did not end: its stdin was not closed")
	}
	if out := task.Output().Render(1 << 20); !strings.Contains(out, "HELLO FROM STDIN\nend") {
		t.Errorf("output = %q", out)
	}

	res, err = execTool(t.Context(), b, map[string]any{"command": "cat", "stdin": "x"}, nil)
	if err != nil || !res.IsError || !strings.Contains(res.Text(), "stdin is for background commands") {
		t.Errorf("foreground stdin: %v %q", err, res.Text())
	}
}
