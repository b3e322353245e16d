package state

import (
	"context"
	_ "embed"
	"encoding/json"

	"github.com/toolhost/toolhost/tools"
)

//go:embed taskget.md
var taskGetDescription string

var taskGetSchema = tools.SchemaOf[taskGetParams](nil)

// taskGetParams is the input of TaskGet.
type taskGetParams struct {
	TaskID string `json:"taskId" jsonschema:"The id of the task to get."`
}

// TaskGetOutput is the structured result, in Claude Code's shape (task is
// null when there is no such task).
type TaskGetOutput struct {
	Task *TaskGetTask `json:"task"`
}

// TaskGetTask is TaskGetOutput's task.
type TaskGetTask struct {
	ID          string   `json:"id"`
	Subject     string   `json:"subject"`
	Description string   `json:"description"`
	Status      string   `json:"status"`
	Blocks      []string `json:"blocks"`
	BlockedBy   []string `json:"blockedBy"`
}

// TaskGet shows one task.
type TaskGet struct{ board *TaskBoard }

// NewTaskGet returns TaskGet over board.
func NewTaskGet(board *TaskBoard) *TaskGet { return &TaskGet{board: board} }

func (*TaskGet) Name() string                 { return "TaskGet" }
func (*TaskGet) Description() string          { return taskGetDescription }
func (*TaskGet) InputSchema() json.RawMessage { return taskGetSchema.JSON() }
func (*TaskGet) SideEffect() tools.SideEffect { return tools.SideEffectNone }

// Docs implements tools.Documented.
func (*TaskGet) Docs() tools.Docs {
	return tools.Docs{
		Short:    "Get one task of the session's task list by id.",
		Long:     "An unknown id is an error listing the ids there are (Claude Code answers a null task).",
		Examples: []tools.Example{{Title: "Read task 2", Input: json.RawMessage(`{"taskId":"2"}`)}},
	}
}

// Execute shows the task.
func (t *TaskGet) Execute(_ context.Context, call *tools.Call) (*tools.Result, error) {
	var p taskGetParams
	if res := decode(t.Name(), call.Input, &p); res != nil {
		return res, nil
	}
	b := t.board
	b.mu.Lock()
	task := b.findLocked(p.TaskID)
	if task == nil {
		ids := b.idsLocked()
		b.mu.Unlock()
		res := tools.ErrorResult("there is no task %q; %s.", p.TaskID, ids)
		res.Structured = TaskGetOutput{}
		return res, nil
	}
	open := openBlockers(b, task)
	snap := *task
	b.mu.Unlock()
	res := tools.TextResult(describe(snap, open))
	out := &TaskGetTask{ID: snap.ID, Subject: snap.Subject, Description: snap.Description, Status: snap.Status,
		Blocks: append([]string{}, snap.Blocks...), BlockedBy: append([]string{}, snap.BlockedBy...)}
	res.Structured = TaskGetOutput{Task: out}
	return res, nil
}
