package tasks

import (
	"context"
	_ "embed"
	"encoding/json"

	"github.com/toolhost/toolhost/tools"
)

//go:embed taskstop.md
var taskStopDescription string

// TaskStopInput is the input of TaskStop, as in Claude Code.
type TaskStopInput struct {
	TaskID string `json:"task_id,omitempty" jsonschema:"Id of the background task to stop."`
	// ShellID is the deprecated name of TaskID.
	ShellID string `json:"shell_id,omitempty" jsonschema:"Older name of task_id; use task_id."`
}

// TaskStopOutput is the structured result of TaskStop, in Claude Code's shape.
type TaskStopOutput struct {
	Message  string `json:"message"`
	TaskID   string `json:"task_id"`
	TaskType string `json:"task_type"`
	Command  string `json:"command,omitempty"`
}

var taskStopSchema = tools.SchemaOf[TaskStopInput](nil)

// TaskStopTool stops a background task.
type TaskStopTool struct {
	tasks *Manager
}

// NewTaskStop returns the TaskStop tool over the session's tasks.
func NewTaskStop(m *Manager) *TaskStopTool { return &TaskStopTool{tasks: m} }

func (*TaskStopTool) Name() string                 { return "TaskStop" }
func (*TaskStopTool) Description() string          { return taskStopDescription }
func (*TaskStopTool) InputSchema() json.RawMessage { return taskStopSchema.JSON() }

// SideEffect: it only ends processes the session itself started.
func (*TaskStopTool) SideEffect() tools.SideEffect { return tools.SideEffectState }

// Docs documents TaskStop.
func (*TaskStopTool) Docs() tools.Docs {
	return tools.Docs{
		Short:    "Stop a running background task and every process it started.",
		Long:     taskStopDescription,
		Examples: []tools.Example{{Title: "Stop a dev server", Input: json.RawMessage(`{"task_id":"bash-2"}`)}},
	}
}

func (s *TaskStopTool) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var in TaskStopInput
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return tools.ErrorResult("the input of TaskStop is not valid: %v. Send {\"task_id\": \"...\"}.", err), nil
	}
	id := in.TaskID
	if id == "" {
		id = in.ShellID
	}
	t, res := lookup(s.tasks, id)
	if res != nil {
		return res, nil
	}
	if snap := t.Snapshot(); snap.Status != Running {
		return tools.ErrorResult("%s Nothing to stop; TaskOutput shows its output.", describe(snap)), nil
	}
	snap, err := s.tasks.Stop(ctx, t.ID())
	if err != nil {
		return nil, err
	}
	msg := "Stopped task " + snap.ID + " (" + snap.Command + ")."
	r := tools.TextResult(msg)
	r.Structured = TaskStopOutput{Message: msg, TaskID: snap.ID, TaskType: snap.Kind, Command: snap.Command}
	return r, nil
}
