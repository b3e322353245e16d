package state

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/tools"
)

// questionTodoHost is a Host that records notifications and answers questions
// from a script.
type questionTodoHost struct {
	tools.NoHost

	answers map[string]string
	askErr  error

	mu       sync.Mutex
	notified []notification
	asked    [][]tools.Question
}

type notification struct {
	method string
	params json.RawMessage
}

func (h *questionTodoHost) Notify(_ context.Context, method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.notified = append(h.notified, notification{method, raw})
	return nil
}

func (h *questionTodoHost) AskUserQuestion(_ context.Context, _ string, qs []tools.Question) (map[string]string, error) {
	h.mu.Lock()
	h.asked = append(h.asked, qs)
	h.mu.Unlock()
	return h.answers, h.askErr
}

func TestTodoWrite(t *testing.T) {
	tests := []struct {
		name      string
		input     string
		wantError string // substring of an error result; empty means success
		wantText  string
		wantTodos []Todo
	}{
		{
			name:      "valid list is stored and announced",
			input:     `{"todos":[{"content":"Write tests","status":"in_progress","activeForm":"Writing tests"},{"content":"Ship","status":"pending","activeForm":"Shipping"},{"content":"Plan","status":"completed","activeForm":"Planning"}]}`,
			wantText:  "3 todos: 1 in progress, 1 pending, 1 completed.",
			wantTodos: []Todo{{"Write tests", "in_progress", "Writing tests"}, {"Ship", "pending", "Shipping"}, {"Plan", "completed", "Planning"}},
		},
		{
			name:      "empty list clears",
			input:     `{"todos":[]}`,
			wantText:  "now empty",
			wantTodos: []Todo{},
		},
		{
			name:      "unknown status names the item",
			input:     `{"todos":[{"content":"A","status":"pending","activeForm":"Doing A"},{"content":"B","status":"done","activeForm":"Doing B"}]}`,
			wantError: `todos[1].status is "done"`,
		},
		{
			name:      "empty content and activeForm",
			input:     `{"todos":[{"content":" ","status":"pending","activeForm":""}]}`,
			wantError: "todos[0].content is empty; todos[0].activeForm is empty",
		},
		{
			name:      "more items than a list holds",
			input:     todoList(MaxTodos+1, "Step", "pending"),
			wantError: "it has 1001 items, more than the 1000 a todo list holds",
		},
		{
			name:      "a list at the cap is kept",
			input:     todoList(MaxTodos, strings.Repeat("é", MaxTodoChars), "completed"),
			wantText:  "1000 todos: 1000 completed.",
			wantTodos: todos(MaxTodos, strings.Repeat("é", MaxTodoChars), "completed"),
		},
		{
			name:      "an item longer than the cap, counted in characters",
			input:     `{"todos":[{"content":"` + strings.Repeat("é", MaxTodoChars+1) + `","status":"pending","activeForm":"Doing it"}]}`,
			wantError: "todos[0].content is 2001 characters, more than 2000",
		},
		{
			name:      "many invalid items are named up to ten",
			input:     todoList(50, "Step", "done"),
			wantError: `todos[9].status is "done", want pending, in_progress or completed; and 40 more.`,
		},
		{
			name:      "missing todos",
			input:     `{}`,
			wantError: "todos is required",
		},
		{
			name:      "malformed input",
			input:     `{"todos":"x"}`,
			wantError: "not a valid TodoWrite input",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store := NewTodoStore()
			before := []Todo{{"Old", "pending", "Doing old"}}
			store.Replace(before)
			host := &questionTodoHost{}
			res, err := NewTodoWrite(store).Execute(t.Context(), &tools.Call{Input: json.RawMessage(tc.input), Host: host})
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantError != "" {
				if !res.IsError || !strings.HasPrefix(res.Text(), "Error: ") || !strings.Contains(res.Text(), tc.wantError) {
					t.Fatalf("result %q (isError %v), want an error containing %q", res.Text(), res.IsError, tc.wantError)
				}
				if got := store.Todos(); !reflect.DeepEqual(got, before) {
					t.Errorf("a rejected call changed the store to %v", got)
				}
				if len(host.notified) != 0 {
					t.Errorf("a rejected call notified %v", host.notified)
				}
				return
			}
			if res.IsError {
				t.Fatalf("unexpected error result %q", res.Text())
			}
			if !strings.Contains(res.Text(), tc.wantText) || !strings.Contains(res.Text(), "Keep using it") {
				t.Errorf("text %q lacks %q or the reminder", res.Text(), tc.wantText)
			}
			if got := store.Todos(); !reflect.DeepEqual(got, tc.wantTodos) {
				t.Errorf("store holds %v, want %v", got, tc.wantTodos)
			}
			out, ok := res.Structured.(TodoWriteOutput)
			if !ok || !reflect.DeepEqual(out.OldTodos, before) || !reflect.DeepEqual(out.NewTodos, tc.wantTodos) {
				t.Errorf("structured %#v, want old %v new %v", res.Structured, before, tc.wantTodos)
			}
			if len(host.notified) != 1 || host.notified[0].method != "toolhost/todos" {
				t.Fatalf("notifications %v, want one toolhost/todos", host.notified)
			}
			var params struct {
				Todos []Todo `json:"todos"`
			}
			if err := json.Unmarshal(host.notified[0].params, &params); err != nil {
				t.Fatal(err)
			}
			if params.Todos == nil || !reflect.DeepEqual(params.Todos, tc.wantTodos) {
				t.Errorf("notified %s, want the whole new list", host.notified[0].params)
			}
		})
	}
}

func TestTodoStoreReturnsCopies(t *testing.T) {
	store := NewTodoStore()
	in := []Todo{{"A", "pending", "Doing A"}}
	store.Replace(in)
	in[0].Content = "changed by caller"
	got := store.Todos()
	got[0].Status = "completed"
	if again := store.Todos(); again[0].Content != "A" || again[0].Status != "pending" {
		t.Errorf("the store shares memory with its callers: %v", again)
	}
}

// todos is n items of content with status.
func todos(n int, content, status string) []Todo {
	list := make([]Todo, n)
	for i := range list {
		list[i] = Todo{Content: content, Status: status, ActiveForm: "Doing it"}
	}
	return list
}

// todoList is todos as TodoWrite's input.
func todoList(n int, content, status string) string {
	raw, _ := json.Marshal(TodosParams{Todos: todos(n, content, status)})
	return string(raw)
}
