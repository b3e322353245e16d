package state

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolhost/toolhost/tools"
)

//go:embed taskcreate.md
var taskCreateDescription string

var taskCreateSchema = tools.SchemaOf[taskCreateParams](nil)

type taskCreateParams struct {
	Subject     string         `json:"subject" jsonschema:"A brief title for the task, in the imperative (\"Fix the login redirect\")."`
	Description string         `json:"description" jsonschema:"What needs to be done, and what done means."`
	ActiveForm  string         `json:"activeForm,omitempty" jsonschema:"Present continuous form shown while the task is in progress (\"Fixing the login redirect\")."`
	Metadata    map[string]any `json:"metadata,omitempty" jsonschema:"Arbitrary metadata to attach to the task." schema:"additionalProperties=true"`
}

// TaskCreateOutput is the structured result, in Claude Code's shape.
type TaskCreateOutput struct {
	Task struct {
		ID          string `json:"id"`
		Subject     string `json:"subject"`
		Description string `json:"description"`
	} `json:"task"`
}

// TaskCreate adds a task to the session's task list.
type TaskCreate struct{ board *TaskBoard }

// NewTaskCreate returns TaskCreate over board.
func NewTaskCreate(board *TaskBoard) *TaskCreate { return &TaskCreate{board: board} }

func (*TaskCreate) Name() string                 { return "TaskCreate" }
func (*TaskCreate) Description() string          { return taskCreateDescription }
func (*TaskCreate) InputSchema() json.RawMessage { return taskCreateSchema.JSON() }
func (*TaskCreate) SideEffect() tools.SideEffect { return tools.SideEffectState }

// Docs implements tools.Documented.
func (*TaskCreate) Docs() tools.Docs {
	return tools.Docs{
		Short: "Create a task in the session's task list (Claude Code 2.1's successor of TodoWrite).",
		Long: "Tasks get ids 1, 2, 3, ... in this session and start pending. The client receives the whole list " +
			"with a " + TaskListNotification + " notification after every change (shown like the todo list). " +
			"The list holds at most 1000 tasks; a subject or activeForm at most 2000 characters, a description " +
			"20,000, metadata 16 KiB as JSON.",
		Examples: []tools.Example{{Title: "Plan a step", Input: json.RawMessage(`{"subject":"Add the parser test","description":"A failing test for the empty-input case in parser_test.go","activeForm":"Adding the parser test"}`)}},
	}
}

// Execute creates the task.
func (t *TaskCreate) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var p taskCreateParams
	if res := decode(t.Name(), call.Input, &p); res != nil {
		return res, nil
	}
	subject := strings.TrimSpace(p.Subject)
	if subject == "" {
		return tools.ErrorResult("subject is empty; give the task a short title."), nil
	}
	if fail := taskTextProblem(taskField{"subject", &subject, MaxTodoChars}, taskField{"activeForm", &p.ActiveForm, MaxTodoChars},
		taskField{"description", &p.Description, MaxTaskDescriptionChars}); fail != "" {
		return tools.ErrorResult("%s", fail), nil
	}
	if fail := metadataProblem(p.Metadata); fail != "" {
		return tools.ErrorResult("%s", fail), nil
	}
	b := t.board
	b.mu.Lock()
	if len(b.tasks) >= MaxTasks {
		b.mu.Unlock()
		return tools.ErrorResult("the task list already holds %d tasks, the most it holds; nothing was created. Delete tasks that no longer matter (TaskUpdate with status deleted), or merge small ones, then create it again.", MaxTasks), nil
	}
	task := &BoardTask{ID: b.nextIDLocked(), Subject: subject, Description: p.Description, ActiveForm: p.ActiveForm,
		Status: TaskPending, Metadata: p.Metadata}
	b.tasks = append(b.tasks, task)
	b.mu.Unlock()
	b.notify(ctx, call.Host)
	res := tools.TextResult(fmt.Sprintf("Task #%s created: %s", task.ID, subject))
	var out TaskCreateOutput
	out.Task.ID, out.Task.Subject, out.Task.Description = task.ID, subject, p.Description
	res.Structured = out
	return res, nil
}
