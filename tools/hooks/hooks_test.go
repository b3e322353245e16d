package hooks

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testfifo"
	"github.com/toolhost/toolhost/internal/testproc"
	"github.com/toolhost/toolhost/settings"
)

// script writes an executable shell script into dir and returns the command
// that runs it.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/bash\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// runnerFor returns a runner whose settings configure cmds for event under
// matcher, running in dir.
func runnerFor(dir, event, matcher string, env map[string]string, cmds ...settings.HookCommand) *Runner {
	set := settings.Defaults()
	set.Env = env
	set.Hooks = map[string][]settings.HookMatcher{event: {{Matcher: matcher, Hooks: cmds}}}
	return NewRunner(Options{
		Settings:  func() *settings.Settings { return set },
		Dir:       func() string { return dir },
		SessionID: "session-1",
	})
}

func TestMatchers(t *testing.T) {
	tests := []struct {
		matcher, tool string
		want          bool
	}{
		{"", "Read", true},
		{"*", "mcp__github__create_issue", true},
		{"Edit|Write", "Edit", true},
		{"Edit|Write", "Write", true},
		{"Edit|Write", "NotebookEdit", false},
		{"Edit", "edit", false},
		{"Notebook.*", "NotebookEdit", true},
		{"mcp__github__.*", "mcp__github__create_issue", true},
		{"mcp__github__.*", "mcp__gitlab__create_issue", false},
		{"(", "Read", false},
	}
	for _, tt := range tests {
		t.Run(tt.matcher+"/"+tt.tool, func(t *testing.T) {
			r := runnerFor(t.TempDir(), PreToolUse, tt.matcher, nil, settings.HookCommand{Type: "command", Command: "true"})
			if got := r.Has(PreToolUse, tt.tool); got != tt.want {
				t.Errorf("matcher %q on %q = %v, want %v", tt.matcher, tt.tool, got, tt.want)
			}
			if r.Has(PostToolUse, tt.tool) {
				t.Errorf("a PreToolUse matcher selected a PostToolUse event")
			}
		})
	}
}

func TestHookReceivesEventEnvAndDir(t *testing.T) {
	dir := t.TempDir()
	cmd := script(t, dir, "record.sh", `cat > event.json; printf %s "$GREETING" > env.txt; pwd > cwd.txt; printf %s "$CLAUDE_PROJECT_DIR" > project.txt`)
	r := runnerFor(dir, PostToolUse, "Read", map[string]string{"GREETING": "hello"}, settings.HookCommand{Command: cmd})

	out := r.Run(context.Background(), Event{
		Name: PostToolUse, ToolName: "Read", ToolUseID: "toolu_1",
		ToolInput:      json.RawMessage(`{"file_path":"/x/a.go"}`),
		ToolResponse:   map[string]any{"ok": true},
		PermissionMode: "default",
	})
	if len(out.Messages) != 0 {
		t.Fatalf("unexpected messages: %q", out.Messages)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "event.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("stdin was not JSON: %v\n%s", err, raw)
	}
	want := map[string]any{
		"session_id":      "session-1",
		"cwd":             dir,
		"permission_mode": "default",
		"hook_event_name": "PostToolUse",
		"tool_name":       "Read",
		"tool_input":      map[string]any{"file_path": "/x/a.go"},
		"tool_use_id":     "toolu_1",
		"tool_response":   map[string]any{"ok": true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("event on stdin:\n got %v\nwant %v", got, want)
	}
	for file, want := range map[string]string{"env.txt": "hello", "cwd.txt": dir, "project.txt": dir} {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(string(b)) != want {
			t.Errorf("%s = %q, want %q", file, b, want)
		}
	}
}

func TestOutcomes(t *testing.T) {
	tests := []struct {
		name  string
		event string
		body  string
		want  Outcome
	}{
		{
			name: "exit 2 denies with stderr", event: PreToolUse,
			body: `echo "rm is not allowed here" >&2; exit 2`,
			want: Outcome{Decision: DecisionDeny, Reasons: []string{"rm is not allowed here"}},
		},
		{
			name: "exit 2 after the call blocks", event: PostToolUse,
			body: `echo "lint failed: a.go:3" >&2; exit 2`,
			want: Outcome{Decision: DecisionBlock, Reasons: []string{"lint failed: a.go:3"}},
		},
		{
			name: "JSON deny", event: PreToolUse,
			body: `echo '{"suppressOutput":true,"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"secrets live there"}}'`,
			want: Outcome{Decision: DecisionDeny, Reasons: []string{"secrets live there"}},
		},
		{
			name: "JSON ask", event: PreToolUse,
			body: `echo '{"suppressOutput":true,"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"touches CI"}}'`,
			want: Outcome{Decision: DecisionAsk, Reasons: []string{"touches CI"}},
		},
		{
			name: "legacy decision block before the call", event: PreToolUse,
			body: `echo '{"suppressOutput":true,"decision":"block","reason":"frozen"}'`,
			want: Outcome{Decision: DecisionDeny, Reasons: []string{"frozen"}},
		},
		{
			name: "decision block after the call", event: PostToolUse,
			body: `echo '{"suppressOutput":true,"decision":"block","reason":"run gofmt"}'`,
			want: Outcome{Decision: DecisionBlock, Reasons: []string{"run gofmt"}},
		},
		{
			name: "updated input", event: PreToolUse,
			body: `echo '{"suppressOutput":true,"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"file_path":"/b"}}}'`,
			want: Outcome{Decision: DecisionAllow, UpdatedInput: json.RawMessage(`{"file_path":"/b"}`)},
		},
		{
			name: "additional context", event: PostToolUseFailure,
			body: `echo '{"suppressOutput":true,"hookSpecificOutput":{"additionalContext":"the test server is down"}}'`,
			want: Outcome{Context: []string{"the test server is down"}},
		},
		{
			name: "JSON output shown unless suppressed", event: PostToolUse,
			body: `echo '{"hookSpecificOutput":{"additionalContext":"ctx"}}'`,
			want: Outcome{Context: []string{"ctx"}, Messages: []string{`{"hookSpecificOutput":{"additionalContext":"ctx"}}`}},
		},
		{
			name: "system message reaches the user", event: PostToolUse,
			body: `echo '{"suppressOutput":true,"systemMessage":"formatted 1 file"}'`,
			want: Outcome{Messages: []string{"formatted 1 file"}},
		},
		{
			name: "continue false stops", event: PostToolUse,
			body: `echo '{"suppressOutput":true,"continue":false,"stopReason":"budget spent"}'`,
			want: Outcome{Stop: true, StopReason: "budget spent"},
		},
		{
			name: "garbage stdout is plain text", event: PreToolUse,
			body: `printf '{not json at all\n\x01\x02 ]]'`,
			want: Outcome{Messages: []string{"{not json at all\n\x01\x02 ]]"}},
		},
		{
			name: "other exit codes do not block", event: PreToolUse,
			body: `echo boom >&2; exit 1`,
			want: Outcome{Messages: []string{"PreToolUse hook `./hook.sh` failed with exit status 1: boom"}},
		},
		{
			name: "silent success", event: PreToolUse,
			body: `cat >/dev/null`,
			want: Outcome{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			script(t, dir, "hook.sh", tt.body)
			// Relative to the folder hooks run in.
			r := runnerFor(dir, tt.event, "Bash", nil, settings.HookCommand{Type: "command", Command: "./hook.sh"})
			got := r.Run(context.Background(), Event{Name: tt.event, ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"ls"}`)})
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("outcome:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestMergeAcrossHooks(t *testing.T) {
	dir := t.TempDir()
	allow := script(t, dir, "allow.sh", `echo '{"suppressOutput":true,"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"n":1},"additionalContext":"first"}}'`)
	deny := script(t, dir, "deny.sh", `echo '{"suppressOutput":true,"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no","updatedInput":{"n":2},"additionalContext":"second"}}'`)
	r := runnerFor(dir, PreToolUse, "*", nil,
		settings.HookCommand{Command: allow}, settings.HookCommand{Command: deny}, settings.HookCommand{Command: allow})

	got := r.Run(context.Background(), Event{Name: PreToolUse, ToolName: "Write"})
	want := Outcome{
		Decision:     DecisionDeny,
		Reasons:      []string{"no"},
		UpdatedInput: json.RawMessage(`{"n":2}`),
		Context:      []string{"first", "second"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merged outcome (the repeated command runs once):\n got %+v\nwant %+v", got, want)
	}
}

// readPIDs reads the process ids a hook wrote, one per line.
func readPIDs(t *testing.T, path string) []int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pid)
	}
	return pids
}

func TestHangingHookIsKilledAtItsTimeout(t *testing.T) {
	dir := t.TempDir()
	pids := filepath.Join(dir, "pids")
	cmd := script(t, dir, "hang.sh", `echo $$ > `+pids+`; sleep 300 & echo $! >> `+pids+`; wait`)
	r := runnerFor(dir, PreToolUse, "*", nil, settings.HookCommand{Command: cmd, Timeout: 1})

	got := r.Run(context.Background(), Event{Name: PreToolUse, ToolName: "Read"})
	if got.Decision != "" || len(got.Messages) != 1 || !strings.Contains(got.Messages[0], "did not finish within 1s") {
		t.Fatalf("outcome = %+v, want no decision and one timeout note", got)
	}
	for _, pid := range readPIDs(t, pids) {
		if !testproc.EventuallyGone(pid) {
			t.Errorf("process %d of the hook's group still runs", pid)
		}
	}
}

func TestCancelKillsRunningHooks(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "started")
	testfifo.Make(t, fifo)
	pids := filepath.Join(dir, "pids")
	cmd := script(t, dir, "hang.sh", `sleep 300 & echo $! > `+pids+`; echo $$ >> `+pids+`; echo up > `+fifo+`; wait`)
	r := runnerFor(dir, PreToolUse, "*", nil, settings.HookCommand{Command: cmd})

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Outcome)
	go func() { done <- r.Run(ctx, Event{Name: PreToolUse, ToolName: "Read"}) }()

	// Opening the pipe waits for the hook to write to it: it is running.
	f, err := os.Open(fifo)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bufio.NewReader(f).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	f.Close()
	cancel()
	got := <-done
	if got.Decision != "" || len(got.Messages) != 0 {
		t.Errorf("an interrupted hook contributed %+v", got)
	}
	for _, pid := range readPIDs(t, pids) {
		if !testproc.EventuallyGone(pid) {
			t.Errorf("process %d of the hook's group still runs", pid)
		}
	}
}
