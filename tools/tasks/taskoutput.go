package tasks

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
)

//go:embed taskoutput.md
var taskOutputDescription string

// TaskOutput timeouts, in milliseconds.
const (
	DefaultOutputWaitMs = 30_000
	MaxOutputWaitMs     = 600_000
)

// TaskOutputInput is the input of TaskOutput.
type TaskOutputInput struct {
	TaskID  string   `json:"task_id" jsonschema:"Id of the background task."`
	Block   *bool    `json:"block,omitempty" jsonschema:"Wait for the task to end (up to timeout) before answering. Default true." schema:"default=true"`
	Timeout *float64 `json:"timeout,omitempty" jsonschema:"How long to wait in milliseconds when block is true. Default 30000." schema:"minimum=0,maximum=600000,default=30000"`
}

// TaskOutputResult is the structured result of TaskOutput.
type TaskOutputResult struct {
	TaskID   string `json:"task_id"`
	TaskType string `json:"task_type"`
	Status   Status `json:"status"`
	Command  string `json:"command"`
	ExitCode *int   `json:"exitCode,omitempty"`
	Output   string `json:"output"`
}

var taskOutputSchema = tools.SchemaOf[TaskOutputInput](nil)

// TaskOutputTool returns a background task's state and output.
type TaskOutputTool struct {
	tasks    *Manager
	settings func() *settings.Settings
}

// NewTaskOutput returns the TaskOutput tool over the session's tasks; the
// output shown is capped by the current bash.maxOutputChars setting.
func NewTaskOutput(m *Manager, s func() *settings.Settings) *TaskOutputTool {
	return &TaskOutputTool{tasks: m, settings: s}
}

func (*TaskOutputTool) Name() string                 { return "TaskOutput" }
func (*TaskOutputTool) Description() string          { return taskOutputDescription }
func (*TaskOutputTool) InputSchema() json.RawMessage { return taskOutputSchema.JSON() }
func (*TaskOutputTool) SideEffect() tools.SideEffect { return tools.SideEffectBlocking }

// Docs documents TaskOutput.
func (*TaskOutputTool) Docs() tools.Docs {
	return tools.Docs{
		Short: "Read the state and output of a background task, optionally waiting for it to end.",
		Long:  taskOutputDescription,
		Examples: []tools.Example{
			{Title: "Wait up to a minute for a build", Input: json.RawMessage(`{"task_id":"bash-1","timeout":60000}`)},
			{Title: "Peek without waiting", Input: json.RawMessage(`{"task_id":"bash-1","block":false}`)},
		},
	}
}

func (o *TaskOutputTool) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var in TaskOutputInput
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return tools.ErrorResult("the input of TaskOutput is not valid: %v. Send {\"task_id\": \"...\"}.", err), nil
	}
	t, res := lookup(o.tasks, in.TaskID)
	if res != nil {
		return res, nil
	}
	if in.Block == nil || *in.Block {
		wait := time.Duration(DefaultOutputWaitMs) * time.Millisecond
		if in.Timeout != nil {
			wait = time.Duration(min(max(*in.Timeout, 0), MaxOutputWaitMs)) * time.Millisecond
		}
		timer := time.NewTimer(wait)
		defer timer.Stop()
		select {
		case <-t.Done():
		case <-timer.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	snap := t.Snapshot()
	maxBytes := settings.Defaults().Bash.MaxOutputChars
	if s := o.settings; s != nil && s().Bash.MaxOutputChars > 0 {
		maxBytes = s().Bash.MaxOutputChars
	}
	out := t.Output().Render(maxBytes)
	var b strings.Builder
	b.WriteString(describe(snap))
	b.WriteString("\n\n")
	if out == "" {
		b.WriteString("(no output yet)")
	} else {
		b.WriteString(out)
	}
	r := tools.TextResult(b.String())
	r.Structured = TaskOutputResult{TaskID: snap.ID, TaskType: snap.Kind, Status: snap.Status, Command: snap.Command, ExitCode: snap.ExitCode, Output: out}
	return r, nil
}

// describe is the first line of TaskOutput and TaskStop results.
func describe(s Snapshot) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Task %s (%s) is %s", s.ID, s.Command, s.Status)
	switch {
	case s.Status == Running:
		fmt.Fprintf(&b, ", started %s ago", time.Since(s.StartedAt).Round(time.Second))
	case s.ExitCode != nil:
		fmt.Fprintf(&b, " with exit code %d", *s.ExitCode)
	}
	if s.Failure != "" {
		fmt.Fprintf(&b, " (%s)", s.Failure)
	}
	b.WriteString(".")
	return b.String()
}

// lookup finds a task or explains which ids exist.
func lookup(m *Manager, id string) (*Task, *tools.Result) {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil, tools.ErrorResult("task_id is empty. Give the id returned when the task started.")
	}
	if t, ok := m.Get(id); ok {
		return t, nil
	}
	ids := m.IDs(false)
	if len(ids) == 0 {
		return nil, tools.ErrorResult("no background task %q: no tasks have been started in this session.", id)
	}
	return nil, tools.ErrorResult("no background task %q. The tasks of this session are: %s.", id, strings.Join(ids, ", "))
}
