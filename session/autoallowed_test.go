package session

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/engine"
)

// promptRecorder is a host that can ask and records every prompt; it
// denies them all.
type promptRecorder struct {
	tools.NoHost
	mu      sync.Mutex
	prompts []string
}

func (h *promptRecorder) RequestPermission(_ context.Context, req tools.PermissionRequest) (tools.PermissionResponse, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.prompts = append(h.prompts, req.ToolName)
	return tools.PermissionResponse{Decision: tools.DecisionDeny}, nil
}

func (h *promptRecorder) asked() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.prompts)
}

// listTools' autoAllowed is the permission checker's answer: the tools that
// change only the session's own state run without a prompt, so they are
// reported as auto-allowed.
func TestAutoAllowedIsTheCheckersDecision(t *testing.T) {
	tests := []struct {
		mode string
		want map[string]bool
	}{
		{tools.ModeDefault, map[string]bool{
			"Read": true, "TodoWrite": true, "TaskOutput": true, "TaskStop": true, "AskUserQuestion": true, "Memory": true, "ExitPlanMode": true,
			"Bash": false, "Edit": false, "Write": false, "WebFetch": false, "Agent": false,
		}},
		{tools.ModeAcceptEdits, map[string]bool{"Edit": true, "Write": true, "NotebookEdit": true, "TodoWrite": true, "Bash": false}},
		{tools.ModePlan, map[string]bool{"Read": true, "TodoWrite": true, "ExitPlanMode": true, "Edit": false, "Bash": false}},
		{tools.ModeDontAsk, map[string]bool{"TodoWrite": true, "Read": true, "Bash": false, "Edit": false}},
		{tools.ModeBypassPermissions, map[string]bool{"Bash": true, "Edit": true, "Agent": true}},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			s, _ := newTestSession(t, "")
			if err := s.Permissions.SetMode(tt.mode); err != nil {
				t.Fatal(err)
			}
			for name, want := range tt.want {
				e, ok := s.Registry.Lookup(name)
				if !ok {
					t.Fatalf("no tool %s", name)
				}
				if got := s.AutoAllowed(nil, e.Tool); got != want {
					t.Errorf("%s: autoAllowed = %v, want %v", name, got, want)
				}
			}
		})
	}
}

// A tool reported as auto-allowed runs without a prompt.
func TestAutoAllowedToolsRunWithoutAPrompt(t *testing.T) {
	s, _ := newTestSession(t, "")
	calls := map[string]string{
		"TodoWrite": `{"todos":[{"content":"a","status":"pending","activeForm":"doing a"}]}`,
		"Memory":    `{"action":"write","name":"n","content":"x"}`,
	}
	for name, input := range calls {
		e, _ := s.Registry.Lookup(name)
		if !s.AutoAllowed(nil, e.Tool) {
			t.Errorf("%s is not reported auto-allowed", name)
		}
		host := &promptRecorder{}
		resp, err := s.Pipeline.Call(context.Background(), host, engine.Request{Name: name, Input: json.RawMessage(input)})
		if err != nil {
			t.Fatal(err)
		}
		if host.asked() != 0 {
			t.Errorf("%s asked the user, yet listTools reports it auto-allowed", name)
		}
		if resp.IsError {
			t.Errorf("%s did not run: %s", name, resp.Text())
		}
	}
}

// The pipeline's Decide reports the checker's decision on a call without
// running it or asking anybody.
func TestPipelineDecideRunsNothing(t *testing.T) {
	s, root := newTestSession(t, `{"permissions": {"deny": ["Bash(rm:*)"]}}`)
	target := filepath.Join(root, "made.txt")
	tests := []struct {
		name, input string
		mode        string
		want        tools.Verdict
		wantError   string
	}{
		{"Read", `{"file_path":"x.txt"}`, tools.ModeDefault, tools.VerdictAllow, ""},
		{"Bash", `{"command":"ls"}`, tools.ModeDefault, tools.VerdictAsk, ""},
		{"Bash", `{"command":"rm -rf x"}`, tools.ModeBypassPermissions, tools.VerdictDeny, ""},
		{"Bash", `{"command":"ls"}`, tools.ModeDontAsk, tools.VerdictDeny, ""},
		{"Write", `{"file_path":` + jsonString(target) + `,"content":"x"}`, tools.ModeAcceptEdits, tools.VerdictAllow, ""},
		{"Write", `{"file_path":` + jsonString(target) + `}`, tools.ModeDefault, "", "content"},
		{"Raed", `{}`, tools.ModeDefault, "", "Did you mean Read?"},
	}
	for _, tt := range tests {
		if err := s.Permissions.SetMode(tt.mode); err != nil {
			t.Fatal(err)
		}
		host := &promptRecorder{}
		checked, res := s.Pipeline.Check(context.Background(), host, engine.Request{Name: tt.name, Input: json.RawMessage(tt.input)})
		d := checked.Decision
		switch {
		case tt.wantError != "":
			if res == nil || !strings.Contains(res.Text(), tt.wantError) {
				t.Errorf("%s %s: result %+v, want an error naming %q", tt.name, tt.input, res, tt.wantError)
			}
		case res != nil:
			t.Errorf("%s %s: %s", tt.name, tt.input, res.Text())
		case d.Verdict != tt.want || d.Reason == "":
			t.Errorf("%s %s in %s: %+v, want %s with a reason", tt.name, tt.input, tt.mode, d, tt.want)
		}
		if host.asked() != 0 {
			t.Errorf("%s: Decide asked the user", tt.name)
		}
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Errorf("Decide ran Write: %v", err)
	}
}

// docs/settings.md lists, in step 9 of "How a call is decided", the tools
// allowed without a prompt in the default mode; the list is the checker's.
// Tool names are capitalised (Read) or camel case (getDiagnostics).
func TestSettingsPageListsTheAutoAllowedTools(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "docs", "settings.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, step, ok := strings.Cut(string(page), "\n9. Low-risk tools")
	step, _, ok2 := strings.Cut(step, ") are allowed.")
	if !ok || !ok2 {
		t.Fatal(`docs/settings.md has no step "9. Low-risk tools ... ) are allowed."`)
	}
	documented := map[string]bool{}
	for _, w := range regexp.MustCompile(`\b(?:[A-Z][A-Za-z]+|[a-z]+[A-Z][A-Za-z]*)\b`).FindAllString(step, -1) {
		documented[w] = true
	}

	s, _ := newTestSession(t, `{"tools": {"optIn": ["*"], "teams": true}}`)
	for _, e := range s.Registry.Entries(true) {
		name := e.Tool.Name()
		if auto := s.AutoAllowed(nil, e.Tool); auto != documented[name] {
			t.Errorf("%s: the checker's autoAllowed is %v, but docs/settings.md's step 9 %s it", name, auto, map[bool]string{true: "lists", false: "does not list"}[documented[name]])
		}
		delete(documented, name)
	}
	delete(documented, "Low") // the step's own words
	for w := range documented {
		t.Errorf("docs/settings.md's step 9 names %s, which is no tool", w)
	}
}
