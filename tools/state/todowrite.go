package state

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/toolhost/toolhost/tools"
)

//go:embed todowrite.md
var todoWriteDescription string

// Todo statuses, as in Claude Code's TodoWrite.
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoCompleted  = "completed"
)

// The caps of a todo list. No agent's plan comes near them; they keep a
// runaway or hostile call from storing, and making every editor draw, a
// list of a million items or an item of megabytes.
const (
	// MaxTodos is the most items a list may hold.
	MaxTodos = 1000
	// MaxTodoChars is the most characters of an item's content or activeForm.
	MaxTodoChars = 2000
	// maxProblems is how many invalid items an error names.
	maxProblems = 10
)

// TodosNotification is the method TodoWrite notifies the client with; its
// params are {todos: [...]}, the whole list.
const TodosNotification = "toolhost/todos"

// Todo is one item of the session's task list.
type Todo struct {
	Content    string `json:"content" jsonschema:"What needs doing, in the imperative (\"Run the tests\")." schema:"minLength=1"`
	Status     string `json:"status" schema:"enum=pending|in_progress|completed"`
	ActiveForm string `json:"activeForm" jsonschema:"The same task in the present continuous (\"Running the tests\"), shown while it is in progress." schema:"minLength=1"`
}

// TodoStore keeps a session's todo list. TodoWrite replaces it; the session
// reads it for toolhost/status. Safe for concurrent use.
type TodoStore struct {
	mu    sync.Mutex
	todos []Todo
}

// NewTodoStore returns an empty store.
func NewTodoStore() *TodoStore { return &TodoStore{} }

// Todos returns a copy of the current list.
func (s *TodoStore) Todos() []Todo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Todo{}, s.todos...)
}

// Replace sets the whole list and returns the previous one.
func (s *TodoStore) Replace(todos []Todo) (old []Todo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, s.todos = s.todos, append([]Todo{}, todos...)
	if old == nil {
		old = []Todo{}
	}
	return old
}

// TodosParams is TodoWrite's input and the params of the toolhost/todos
// notification: the whole list.
type TodosParams struct {
	Todos []Todo `json:"todos" jsonschema:"The complete, updated todo list; it replaces the previous one."`
}

// TodoWriteOutput is the structured result, in Claude Code's shape.
type TodoWriteOutput struct {
	OldTodos []Todo `json:"oldTodos"`
	NewTodos []Todo `json:"newTodos"`
}

var todoWriteSchema = tools.SchemaOf[TodosParams](nil)

// TodoWrite replaces the session's todo list and shows it in the client.
type TodoWrite struct {
	store *TodoStore
}

// NewTodoWrite returns the TodoWrite tool writing to store.
func NewTodoWrite(store *TodoStore) *TodoWrite {
	return &TodoWrite{store: store}
}

func (*TodoWrite) Name() string                 { return "TodoWrite" }
func (*TodoWrite) Description() string          { return todoWriteDescription }
func (*TodoWrite) InputSchema() json.RawMessage { return todoWriteSchema.JSON() }
func (*TodoWrite) SideEffect() tools.SideEffect { return tools.SideEffectState }

// Docs implements tools.Documented.
func (*TodoWrite) Docs() tools.Docs {
	return tools.Docs{
		Short: "Replace the session's todo list and show it in the client.",
		Long: "Every call sends the whole list; it replaces the previous one. Statuses are pending, " +
			"in_progress and completed. The client receives the list as a toolhost/todos " +
			"notification ({todos: [{content, status, activeForm}]}) and toolhost/status reports it. " +
			"A list holds at most 1000 items, and an item's content and activeForm at most 2000 characters " +
			"each; a longer list or item is refused as a whole, naming what to shorten.",
		Examples: []tools.Example{{
			Title: "Plan two steps, the first under way",
			Input: json.RawMessage(`{"todos":[{"content":"Reproduce the bug","status":"in_progress","activeForm":"Reproducing the bug"},{"content":"Fix the parser","status":"pending","activeForm":"Fixing the parser"}]}`),
		}},
	}
}

// Execute validates the list, stores it and notifies the client.
func (t *TodoWrite) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var p TodosParams
	if err := json.Unmarshal(call.Input, &p); err != nil {
		return tools.ErrorResult("the input is not a valid TodoWrite input (%v); send {\"todos\": [{\"content\", \"status\", \"activeForm\"}, ...]}.", err), nil
	}
	if p.Todos == nil {
		return tools.ErrorResult("todos is required; send the whole list (an empty array clears it)."), nil
	}
	if len(p.Todos) > MaxTodos {
		return tools.ErrorResult("the todo list was not saved: it has %d items, more than the %d a todo list holds. Keep to the tasks of this session (merge small steps, drop completed items) and send the whole list again.", len(p.Todos), MaxTodos), nil
	}
	if problems := validateTodos(p.Todos); len(problems) > 0 {
		if len(problems) > maxProblems {
			problems = append(problems[:maxProblems], fmt.Sprintf("and %d more", len(problems)-maxProblems))
		}
		return tools.ErrorResult("the todo list was not saved: %s. Fix these items and send the whole list again.", strings.Join(problems, "; ")), nil
	}
	old := t.store.Replace(p.Todos)
	if call.Host != nil {
		// The list is saved whatever the client does with the notification;
		// a client that cannot show it is not the model's problem.
		_ = call.Host.Notify(ctx, TodosNotification, p)
	}
	res := tools.TextResult(summariseTodos(p.Todos) +
		"The todo list is updated. Keep using it to track your progress: mark each task in_progress " +
		"when you start it and completed as soon as it is done, then carry on with the current task.")
	res.Structured = TodoWriteOutput{OldTodos: old, NewTodos: p.Todos}
	return res, nil
}

// validateTodos returns one message per invalid field, naming the item.
func validateTodos(todos []Todo) []string {
	var problems []string
	for i, td := range todos {
		switch td.Status {
		case TodoPending, TodoInProgress, TodoCompleted:
		default:
			problems = append(problems, fmt.Sprintf("todos[%d].status is %q, want pending, in_progress or completed", i, td.Status))
		}
		if strings.TrimSpace(td.Content) == "" {
			problems = append(problems, fmt.Sprintf("todos[%d].content is empty", i))
		}
		if strings.TrimSpace(td.ActiveForm) == "" {
			problems = append(problems, fmt.Sprintf("todos[%d].activeForm is empty", i))
		}
		for _, f := range []struct{ name, text string }{{"content", td.Content}, {"activeForm", td.ActiveForm}} {
			if n := utf8.RuneCountInString(f.text); n > MaxTodoChars {
				problems = append(problems, fmt.Sprintf("todos[%d].%s is %d characters, more than %d: say the task in a line, and keep details in a file or the conversation", i, f.name, n, MaxTodoChars))
			}
		}
	}
	return problems
}

// summariseTodos counts the items by status, e.g. "3 todos: 1 in progress,
// 2 pending. ".
func summariseTodos(todos []Todo) string {
	if len(todos) == 0 {
		return "The todo list is now empty. "
	}
	counts := map[string]int{}
	for _, td := range todos {
		counts[td.Status]++
	}
	var parts []string
	for _, s := range []struct{ status, label string }{
		{TodoInProgress, "in progress"}, {TodoPending, "pending"}, {TodoCompleted, "completed"},
	} {
		if n := counts[s.status]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s.label))
		}
	}
	noun := "todos"
	if len(todos) == 1 {
		noun = "todo"
	}
	return fmt.Sprintf("%d %s: %s. ", len(todos), noun, strings.Join(parts, ", "))
}
