package state

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/tools"
)

//go:embed taskupdate.md
var taskUpdateDescription string

var taskUpdateSchema = tools.SchemaOf[taskUpdateParams](nil)

type taskUpdateParams struct {
	TaskID       string          `json:"taskId" jsonschema:"The id of the task to update."`
	Subject      *string         `json:"subject,omitempty" jsonschema:"New subject for the task."`
	Description  *string         `json:"description,omitempty" jsonschema:"New description for the task."`
	ActiveForm   *string         `json:"activeForm,omitempty" jsonschema:"Present continuous form shown while the task is in progress."`
	Status       *string         `json:"status,omitempty" jsonschema:"New status; deleted removes the task." schema:"enum=pending|in_progress|completed|deleted"`
	AddBlocks    []string        `json:"addBlocks,omitempty" jsonschema:"Ids of tasks that this task blocks."`
	AddBlockedBy []string        `json:"addBlockedBy,omitempty" jsonschema:"Ids of tasks that block this task."`
	Owner        *string         `json:"owner,omitempty" jsonschema:"New owner for the task."`
	Metadata     json.RawMessage `json:"metadata,omitempty" jsonschema:"Metadata keys to merge into the task's; a key set to null is removed." schema:"type=object,additionalProperties=true"`
}

// TaskUpdateOutput is the structured result, in Claude Code's shape.
type TaskUpdateOutput struct {
	Success       bool          `json:"success"`
	TaskID        string        `json:"taskId"`
	UpdatedFields []string      `json:"updatedFields"`
	Error         string        `json:"error,omitempty"`
	StatusChange  *StatusChange `json:"statusChange,omitempty"`
}

// StatusChange is TaskUpdateOutput's statusChange.
type StatusChange struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// TaskUpdate changes a task.
type TaskUpdate struct{ board *TaskBoard }

// NewTaskUpdate returns TaskUpdate over board.
func NewTaskUpdate(board *TaskBoard) *TaskUpdate { return &TaskUpdate{board: board} }

func (*TaskUpdate) Name() string                 { return "TaskUpdate" }
func (*TaskUpdate) Description() string          { return taskUpdateDescription }
func (*TaskUpdate) InputSchema() json.RawMessage { return taskUpdateSchema.JSON() }
func (*TaskUpdate) SideEffect() tools.SideEffect { return tools.SideEffectState }

// Docs implements tools.Documented.
func (*TaskUpdate) Docs() tools.Docs {
	return tools.Docs{
		Short: "Update a task: status (deleted removes it), subject, description, owner, dependencies, metadata.",
		Long: "Dependencies are kept on both sides: addBlocks on #1 naming #2 also makes #2 blocked by #1. " +
			"A dependency on an unknown task, or on the task itself, is an error and changes nothing, as is a " +
			"field over TaskCreate's caps (subject, activeForm and owner 2000 characters, description 20,000, " +
			"metadata 16 KiB as JSON once merged).",
		Examples: []tools.Example{
			{Title: "Start a task", Input: json.RawMessage(`{"taskId":"1","status":"in_progress"}`)},
			{Title: "Make task 3 wait for task 2", Input: json.RawMessage(`{"taskId":"3","addBlockedBy":["2"]}`)},
		},
	}
}

// Execute updates the task.
func (t *TaskUpdate) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var p taskUpdateParams
	if res := decode(t.Name(), call.Input, &p); res != nil {
		return res, nil
	}
	var meta map[string]any
	if len(p.Metadata) > 0 && string(p.Metadata) != "null" {
		if err := json.Unmarshal(p.Metadata, &meta); err != nil {
			return tools.ErrorResult("metadata must be an object (%v).", err), nil
		}
	}
	b := t.board
	b.mu.Lock()
	out, fail := t.apply(b, p, meta)
	b.mu.Unlock()
	if fail != "" {
		res := tools.ErrorResult("%s", fail)
		res.Structured = TaskUpdateOutput{TaskID: p.TaskID, UpdatedFields: []string{}, Error: fail}
		return res, nil
	}
	if len(out.UpdatedFields) > 0 {
		b.notify(ctx, call.Host)
	}
	var text string
	switch {
	case out.StatusChange != nil && out.StatusChange.To == TaskDeleted:
		text = fmt.Sprintf("Task #%s deleted.", out.TaskID)
	case len(out.UpdatedFields) == 0:
		text = fmt.Sprintf("Task #%s unchanged: no field to update was given.", out.TaskID)
	default:
		text = fmt.Sprintf("Updated task #%s: %s.", out.TaskID, strings.Join(out.UpdatedFields, ", "))
	}
	if out.StatusChange != nil && out.StatusChange.To == TaskCompleted {
		text += " Call TaskList to find the next task."
	}
	res := tools.TextResult(text)
	res.Structured = out
	return res, nil
}

// apply makes the update under b.mu; fail is the error for the model, and
// then nothing changed.
func (t *TaskUpdate) apply(b *TaskBoard, p taskUpdateParams, meta map[string]any) (TaskUpdateOutput, string) {
	task := b.findLocked(p.TaskID)
	if task == nil {
		return TaskUpdateOutput{}, fmt.Sprintf("there is no task %q; %s.", p.TaskID, b.idsLocked())
	}
	if fail := taskTextProblem(taskField{"subject", p.Subject, MaxTodoChars}, taskField{"activeForm", p.ActiveForm, MaxTodoChars},
		taskField{"owner", p.Owner, MaxTodoChars}, taskField{"description", p.Description, MaxTaskDescriptionChars}); fail != "" {
		return TaskUpdateOutput{}, fail
	}
	if meta != nil {
		merged := maps.Clone(task.Metadata)
		if merged == nil {
			merged = map[string]any{}
		}
		mergeMetadata(merged, meta)
		if fail := metadataProblem(merged); fail != "" {
			return TaskUpdateOutput{}, fail
		}
	}
	out := TaskUpdateOutput{Success: true, TaskID: task.ID, UpdatedFields: []string{}}
	// Check the dependencies before changing anything.
	var blocks, blockedBy []*BoardTask
	for _, group := range []struct {
		ids  []string
		into *[]*BoardTask
	}{{p.AddBlocks, &blocks}, {p.AddBlockedBy, &blockedBy}} {
		for _, id := range group.ids {
			o := b.findLocked(id)
			switch {
			case o == nil:
				return TaskUpdateOutput{}, fmt.Sprintf("there is no task %q to depend on; %s.", id, b.idsLocked())
			case o == task:
				return TaskUpdateOutput{}, fmt.Sprintf("task #%s cannot block itself.", task.ID)
			}
			*group.into = append(*group.into, o)
		}
	}
	set := func(field string, dst *string, v *string) {
		if v != nil && *v != *dst {
			*dst = *v
			out.UpdatedFields = append(out.UpdatedFields, field)
		}
	}
	set("subject", &task.Subject, p.Subject)
	set("description", &task.Description, p.Description)
	set("activeForm", &task.ActiveForm, p.ActiveForm)
	set("owner", &task.Owner, p.Owner)
	for _, o := range blocks {
		if link(&task.Blocks, o.ID) {
			out.UpdatedFields = appendOnce(out.UpdatedFields, "blocks")
		}
		link(&o.BlockedBy, task.ID)
	}
	for _, o := range blockedBy {
		if link(&task.BlockedBy, o.ID) {
			out.UpdatedFields = appendOnce(out.UpdatedFields, "blockedBy")
		}
		link(&o.Blocks, task.ID)
	}
	if meta != nil {
		if task.Metadata == nil {
			task.Metadata = map[string]any{}
		}
		mergeMetadata(task.Metadata, meta)
		out.UpdatedFields = append(out.UpdatedFields, "metadata")
	}
	if p.Status != nil && *p.Status != task.Status {
		out.StatusChange = &StatusChange{From: task.Status, To: *p.Status}
		// Claude Code names a deletion "deleted" among the updated fields.
		if *p.Status == TaskDeleted {
			out.UpdatedFields = append(out.UpdatedFields, TaskDeleted)
			b.removeLocked(task)
		} else {
			out.UpdatedFields = append(out.UpdatedFields, "status")
			task.Status = *p.Status
		}
	}
	return out, ""
}

// mergeMetadata merges update into metadata; a key set to null is removed.
func mergeMetadata(metadata, update map[string]any) {
	for k, v := range update {
		if v == nil {
			delete(metadata, k)
		} else {
			metadata[k] = v
		}
	}
}

// removeLocked deletes a task and every dependency on it.
func (b *TaskBoard) removeLocked(task *BoardTask) {
	b.tasks = slices.DeleteFunc(b.tasks, func(t *BoardTask) bool { return t == task })
	for _, t := range b.tasks {
		t.Blocks = slices.DeleteFunc(t.Blocks, func(id string) bool { return id == task.ID })
		t.BlockedBy = slices.DeleteFunc(t.BlockedBy, func(id string) bool { return id == task.ID })
	}
}

// link adds id to list unless it is there; it reports whether it added.
func link(list *[]string, id string) bool {
	if slices.Contains(*list, id) {
		return false
	}
	*list = append(*list, id)
	return true
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
