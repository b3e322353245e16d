package state

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/tools"
)

// listHost records the task lists notified.
type listHost struct {
	tools.NoHost
	lists []TaskListParams
}

func (h *listHost) Notify(_ context.Context, method string, params any) error {
	if method == TaskListNotification {
		h.lists = append(h.lists, params.(TaskListParams))
	}
	return nil
}

// TestTaskTools states Claude Code 2.1's task list: numbered ids, status
// changes, two-sided dependencies with only open blockers listed, owner,
// merged metadata, deletion; the client gets the whole list after each change.
func TestTaskTools(t *testing.T) {
	board := NewTaskBoard()
	host := &listHost{}
	run := func(tool tools.Tool, input string) *tools.Result {
		t.Helper()
		res, err := tool.Execute(context.Background(), &tools.Call{Input: json.RawMessage(input), Host: host, Progress: tools.NoProgress{}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	create, get, update, list := NewTaskCreate(board), NewTaskGet(board), NewTaskUpdate(board), NewTaskList(board)

	if res := run(list, `{}`); res.Text() != "No tasks. Create them with TaskCreate." {
		t.Errorf("empty list: %q", res.Text())
	}
	res := run(create, `{"subject":"Write the test","description":"failing first","activeForm":"Writing the test"}`)
	if res.IsError || res.Text() != "Task #1 created: Write the test" || res.Structured.(TaskCreateOutput).Task.ID != "1" {
		t.Fatalf("create: %q %+v", res.Text(), res.Structured)
	}
	run(create, `{"subject":"Fix the bug","description":"make it pass"}`)
	run(create, `{"subject":"Release","description":"tag it","metadata":{"ticket":7}}`)

	res = run(update, `{"taskId":"2","addBlockedBy":["1"],"addBlocks":["3"],"owner":"me"}`)
	out := res.Structured.(TaskUpdateOutput)
	if res.IsError || !reflect.DeepEqual(out.UpdatedFields, []string{"owner", "blocks", "blockedBy"}) {
		t.Errorf("update deps: %q %+v", res.Text(), out)
	}
	if got := run(list, `{}`).Text(); got != "#1 [pending] Write the test\n#2 [pending] Fix the bug (owner: me) [blocked by #1]\n#3 [pending] Release [blocked by #2]" {
		t.Errorf("list:\n%s", got)
	}
	res = run(update, `{"taskId":"#1","status":"completed"}`)
	if sc := res.Structured.(TaskUpdateOutput).StatusChange; sc == nil || *sc != (StatusChange{From: "pending", To: "completed"}) || !strings.Contains(res.Text(), "TaskList") {
		t.Errorf("complete: %q %+v", res.Text(), sc)
	}
	// A completed blocker no longer blocks.
	g := run(get, `{"taskId":"2"}`)
	gt := g.Structured.(TaskGetOutput).Task
	if g.IsError || gt == nil || !reflect.DeepEqual(gt.BlockedBy, []string{"1"}) || !reflect.DeepEqual(gt.Blocks, []string{"3"}) || strings.Contains(g.Text(), "Blocked by") {
		t.Errorf("get: %q %+v", g.Text(), gt)
	}
	entries := run(list, `{}`).Structured.(TaskListOutput).Tasks
	if len(entries[1].BlockedBy) != 0 {
		t.Errorf("TaskList lists a completed blocker: %+v", entries[1])
	}
	// Metadata merges; null removes a key.
	run(update, `{"taskId":"3","metadata":{"ticket":null,"area":"cli"}}`)
	if m := board.Tasks()[2].Metadata; !reflect.DeepEqual(m, map[string]any{"area": "cli"}) {
		t.Errorf("metadata %v", m)
	}
	// Deleting removes the task and the dependencies on it.
	res = run(update, `{"taskId":"2","status":"deleted"}`)
	if res.Text() != "Task #2 deleted." || !reflect.DeepEqual(res.Structured.(TaskUpdateOutput).UpdatedFields, []string{"deleted"}) {
		t.Errorf("delete: %q %+v", res.Text(), res.Structured)
	}
	if got := run(list, `{}`).Text(); got != "#1 [completed] Write the test\n#3 [pending] Release" {
		t.Errorf("after delete:\n%s", got)
	}
	if b := board.Tasks()[1]; len(b.BlockedBy) != 0 {
		t.Errorf("task 3 still depends on the deleted task: %+v", b)
	}
	// Errors change nothing and say what there is.
	for input, want := range map[string]string{
		`{"taskId":"9","status":"completed"}`: `there is no task "9"; the tasks are #1, #3`,
		`{"taskId":"3","addBlocks":["3"]}`:    "cannot block itself",
		`{"taskId":"3","addBlocks":["8"]}`:    `no task "8" to depend on`,
	} {
		if res := run(update, input); !res.IsError || !strings.Contains(res.Text(), want) {
			t.Errorf("%s: %q, want an error with %q", input, res.Text(), want)
		}
	}
	if res := run(get, `{"taskId":"2"}`); !res.IsError || res.Structured.(TaskGetOutput).Task != nil {
		t.Errorf("get deleted: %q", res.Text())
	}
	// Every change sent the whole list; errors and reads sent nothing.
	if n := len(host.lists); n != 7 {
		t.Errorf("%d notifications, want 7 (3 creates, 4 updates)", n)
	}
	last := host.lists[len(host.lists)-1].Tasks
	if len(last) != 2 || last[0].ID != "1" || last[1].ID != "3" {
		t.Errorf("last notified list %+v", last)
	}
}
