package state

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/tools"
)

// The task list's caps: a call over one is an error for the model that
// names the field and changes nothing, the editor is not sent the list,
// and a call at the cap is kept.
func TestTaskCaps(t *testing.T) {
	long := func(n int) string { return strings.Repeat("é", n) }
	quote := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	tests := []struct {
		name      string
		tool      string // create or update (of task 1)
		input     string
		wantError string
	}{
		{"a subject at the cap", "create", `{"subject":` + quote(long(MaxTodoChars)) + `,"description":"d"}`, ""},
		{"a subject over the cap", "create", `{"subject":` + quote(long(MaxTodoChars+1)) + `,"description":"d"}`, "subject is 2001 characters, more than the 2000"},
		{"a description over the cap", "create", `{"subject":"s","description":` + quote(long(MaxTaskDescriptionChars+1)) + `}`, "description is 20001 characters"},
		{"metadata over the cap", "create", `{"subject":"s","description":"d","metadata":{"blob":` + quote(strings.Repeat("x", MaxTaskMetadataBytes)) + `}}`, "metadata would take"},
		{"an update's owner over the cap", "update", `{"taskId":"1","owner":` + quote(long(MaxTodoChars+1)) + `}`, "owner is 2001 characters"},
		{"an update's description over the cap", "update", `{"taskId":"1","description":` + quote(long(MaxTaskDescriptionChars+1)) + `}`, "description is 20001 characters"},
		{"metadata that grows past the cap once merged", "update", `{"taskId":"1","metadata":{"more":` + quote(strings.Repeat("y", MaxTaskMetadataBytes/2+100)) + `}}`, "metadata would take"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			board := NewTaskBoard()
			ctx := context.Background()
			seed := fmt.Sprintf(`{"subject":"first","description":"d","metadata":{"half":%s}}`, quote(strings.Repeat("x", MaxTaskMetadataBytes/2)))
			if res, _ := NewTaskCreate(board).Execute(ctx, &tools.Call{Input: json.RawMessage(seed)}); res.IsError {
				t.Fatal(res.Text())
			}
			before := board.Tasks()
			host := &listHost{}
			var tool tools.Tool = NewTaskCreate(board)
			if tc.tool == "update" {
				tool = NewTaskUpdate(board)
			}
			res, err := tool.Execute(ctx, &tools.Call{Input: json.RawMessage(tc.input), Host: host})
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantError == "" {
				if res.IsError || len(board.Tasks()) != 2 {
					t.Fatalf("%q, %d tasks", res.Text(), len(board.Tasks()))
				}
				return
			}
			if !res.IsError || !strings.Contains(res.Text(), tc.wantError) || !strings.Contains(res.Text(), "nothing was") {
				t.Fatalf("result %q, want an error containing %q", res.Text(), tc.wantError)
			}
			if !reflect.DeepEqual(board.Tasks(), before) || len(host.lists) != 0 {
				t.Errorf("a refused call changed the list or notified the editor")
			}
		})
	}
}

// The list holds MaxTasks tasks; deleting one makes room again.
func TestTaskListIsCapped(t *testing.T) {
	board := NewTaskBoard()
	ctx := context.Background()
	create := NewTaskCreate(board)
	for i := 0; i < MaxTasks; i++ {
		if res, _ := create.Execute(ctx, &tools.Call{Input: json.RawMessage(`{"subject":"s","description":"d"}`)}); res.IsError {
			t.Fatalf("task %d: %s", i+1, res.Text())
		}
	}
	res, _ := create.Execute(ctx, &tools.Call{Input: json.RawMessage(`{"subject":"one more","description":"d"}`)})
	if !res.IsError || !strings.Contains(res.Text(), "already holds 1000 tasks") || len(board.Tasks()) != MaxTasks {
		t.Fatalf("%q, %d tasks", res.Text(), len(board.Tasks()))
	}
	if res, _ := NewTaskUpdate(board).Execute(ctx, &tools.Call{Input: json.RawMessage(`{"taskId":"5","status":"deleted"}`)}); res.IsError {
		t.Fatal(res.Text())
	}
	if res, _ := create.Execute(ctx, &tools.Call{Input: json.RawMessage(`{"subject":"one more","description":"d"}`)}); res.IsError {
		t.Fatalf("after a deletion: %s", res.Text())
	}
}
