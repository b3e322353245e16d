package state

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/tools"
)

// The task list of Claude Code 2.1 (TaskCreate, TaskGet, TaskUpdate,
// TaskList), which replaced TodoWrite there: tasks with ids, a status,
// dependencies (blocks / blockedBy), an owner and metadata. TodoWrite stays
// beside it. Every change sends the client the whole list, as TodoWrite does.

// Task statuses; TaskDeleted removes a task.
const (
	TaskPending    = "pending"
	TaskInProgress = "in_progress"
	TaskCompleted  = "completed"
	TaskDeleted    = "deleted"
)

// TaskListNotification is the method every change of the task list is
// notified with; its params are TaskListParams, the whole list.
const TaskListNotification = "toolhost/taskList"

// BoardTask is one task of the list.
type BoardTask struct {
	ID          string         `json:"id"`
	Subject     string         `json:"subject"`
	Description string         `json:"description"`
	ActiveForm  string         `json:"activeForm,omitempty"`
	Status      string         `json:"status"`
	Owner       string         `json:"owner,omitempty"`
	Blocks      []string       `json:"blocks"`
	BlockedBy   []string       `json:"blockedBy"`
	Metadata    map[string]any `json:"metadata,omitempty"`
}

// TaskListParams is the params of toolhost/taskList.
type TaskListParams struct {
	Tasks []BoardTask `json:"tasks"`
}

// TaskBoard keeps a session's task list. Safe for concurrent use.
type TaskBoard struct {
	mu sync.Mutex
	// tasks in creation order; seq numbers new ids.
	tasks []*BoardTask
	seq   int
}

// NewTaskBoard returns an empty task list.
func NewTaskBoard() *TaskBoard { return &TaskBoard{} }

// Tasks returns a copy of the list.
func (b *TaskBoard) Tasks() []BoardTask {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.snapshotLocked()
}

func (b *TaskBoard) snapshotLocked() []BoardTask {
	out := make([]BoardTask, 0, len(b.tasks))
	for _, t := range b.tasks {
		c := *t
		c.Blocks, c.BlockedBy = slices.Clone(t.Blocks), slices.Clone(t.BlockedBy)
		if c.Blocks == nil {
			c.Blocks = []string{}
		}
		if c.BlockedBy == nil {
			c.BlockedBy = []string{}
		}
		if t.Metadata != nil {
			c.Metadata = make(map[string]any, len(t.Metadata))
			for k, v := range t.Metadata {
				c.Metadata[k] = v
			}
		}
		out = append(out, c)
	}
	return out
}

// find returns the task with id (a leading "#" is allowed); b.mu is held.
func (b *TaskBoard) findLocked(id string) *BoardTask {
	id = strings.TrimPrefix(strings.TrimSpace(id), "#")
	for _, t := range b.tasks {
		if t.ID == id {
			return t
		}
	}
	return nil
}

// ids lists the ids there are, for error messages; b.mu is held.
func (b *TaskBoard) idsLocked() string {
	if len(b.tasks) == 0 {
		return "there are no tasks; create one with TaskCreate"
	}
	ids := make([]string, len(b.tasks))
	for i, t := range b.tasks {
		ids[i] = "#" + t.ID
	}
	return "the tasks are " + strings.Join(ids, ", ")
}

// notify sends the whole list to the client.
func (b *TaskBoard) notify(ctx context.Context, host tools.Host) {
	if host == nil {
		return
	}
	_ = host.Notify(ctx, TaskListNotification, TaskListParams{Tasks: b.Tasks()})
}

// openBlockers are the ids of blockers not completed yet.
func openBlockers(b *TaskBoard, t *BoardTask) []string {
	out := []string{}
	for _, id := range t.BlockedBy {
		if o := b.findLocked(id); o != nil && o.Status != TaskCompleted {
			out = append(out, id)
		}
	}
	return out
}

// decode reads a tool's input into v; a result when it does not fit.
func decode(tool string, input json.RawMessage, v any) *tools.Result {
	if err := json.Unmarshal(input, v); err != nil {
		return tools.ErrorResult("the input is not a valid %s input (%v); see the tool's input schema.", tool, err)
	}
	return nil
}

// nextIDLocked numbers a new task.
func (b *TaskBoard) nextIDLocked() string {
	b.seq++
	return strconv.Itoa(b.seq)
}

// describe is one task in full, for TaskGet.
func describe(t BoardTask, open []string) string {
	var s strings.Builder
	fmt.Fprintf(&s, "Task #%s: %s\nStatus: %s\n", t.ID, t.Subject, t.Status)
	if t.Owner != "" {
		fmt.Fprintf(&s, "Owner: %s\n", t.Owner)
	}
	if t.Description != "" {
		fmt.Fprintf(&s, "Description: %s\n", t.Description)
	}
	if len(t.Blocks) > 0 {
		fmt.Fprintf(&s, "Blocks: %s\n", hashIDs(t.Blocks))
	}
	if len(open) > 0 {
		fmt.Fprintf(&s, "Blocked by: %s\n", hashIDs(open))
	}
	if len(t.Metadata) > 0 {
		m, _ := json.Marshal(t.Metadata)
		fmt.Fprintf(&s, "Metadata: %s\n", m)
	}
	return strings.TrimRight(s.String(), "\n")
}

func hashIDs(ids []string) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = "#" + id
	}
	return strings.Join(out, ", ")
}
