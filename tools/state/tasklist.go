package state

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolhost/toolhost/tools"
)

//go:embed tasklist.md
var taskListDescription string

var taskListSchema = tools.SchemaOf[struct{}](nil)

// TaskListOutput is the structured result, in Claude Code's shape.
type TaskListOutput struct {
	Tasks []TaskListEntry `json:"tasks"`
}

// TaskListEntry is one task of TaskListOutput.
type TaskListEntry struct {
	ID        string   `json:"id"`
	Subject   string   `json:"subject"`
	Status    string   `json:"status"`
	Owner     string   `json:"owner,omitempty"`
	BlockedBy []string `json:"blockedBy"`
}

// TaskList lists the session's tasks.
type TaskList struct{ board *TaskBoard }

// NewTaskList returns TaskList over board.
func NewTaskList(board *TaskBoard) *TaskList { return &TaskList{board: board} }

func (*TaskList) Name() string                 { return "TaskList" }
func (*TaskList) Description() string          { return taskListDescription }
func (*TaskList) InputSchema() json.RawMessage { return taskListSchema.JSON() }
func (*TaskList) SideEffect() tools.SideEffect { return tools.SideEffectNone }

// Docs implements tools.Documented.
func (*TaskList) Docs() tools.Docs {
	return tools.Docs{
		Short:    "List the session's tasks with their status, owner and open blockers.",
		Long:     "blockedBy lists only blockers not completed yet, as in Claude Code.",
		Examples: []tools.Example{{Title: "List the tasks", Input: json.RawMessage(`{}`)}},
	}
}

// Execute lists the tasks.
func (t *TaskList) Execute(_ context.Context, _ *tools.Call) (*tools.Result, error) {
	b := t.board
	b.mu.Lock()
	out := TaskListOutput{Tasks: []TaskListEntry{}}
	var s strings.Builder
	for _, task := range b.tasks {
		open := openBlockers(b, task)
		out.Tasks = append(out.Tasks, TaskListEntry{ID: task.ID, Subject: task.Subject, Status: task.Status, Owner: task.Owner, BlockedBy: open})
		fmt.Fprintf(&s, "#%s [%s] %s", task.ID, task.Status, task.Subject)
		if task.Owner != "" {
			fmt.Fprintf(&s, " (owner: %s)", task.Owner)
		}
		if len(open) > 0 {
			fmt.Fprintf(&s, " [blocked by %s]", hashIDs(open))
		}
		s.WriteByte('\n')
	}
	b.mu.Unlock()
	text := strings.TrimRight(s.String(), "\n")
	if text == "" {
		text = "No tasks. Create them with TaskCreate."
	}
	res := tools.TextResult(text)
	res.Structured = out
	return res, nil
}
