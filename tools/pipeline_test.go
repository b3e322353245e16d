package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/toolhost/toolhost/settings"
)

// fakeTool is a tool whose behaviour each test sets. The pipeline is under
// test here, not the tool.
type fakeTool struct {
	name   string
	schema string
	side   SideEffect
	run    func(ctx context.Context, call *Call) (*Result, error)
	// calls counts Execute calls.
	calls atomic.Int32
}

func (t *fakeTool) Name() string        { return t.name }
func (t *fakeTool) Description() string { return t.name + " is a test tool." }
func (t *fakeTool) InputSchema() json.RawMessage {
	if t.schema == "" {
		return json.RawMessage(`{"type":"object"}`)
	}
	return json.RawMessage(t.schema)
}
func (t *fakeTool) SideEffect() SideEffect {
	if t.side == "" {
		return SideEffectNone
	}
	return t.side
}
func (t *fakeTool) Execute(ctx context.Context, call *Call) (*Result, error) {
	t.calls.Add(1)
	if t.run != nil {
		return t.run(ctx, call)
	}
	return TextResult("ran with " + string(call.Input)), nil
}

// accessTool is a fakeTool that declares what its calls touch and how risky
// they are.
type accessTool struct {
	*fakeTool
	access func(input json.RawMessage) Access
	risk   Risk
}

func (t *accessTool) Access(input json.RawMessage) Access { return t.access(input) }
func (t *accessTool) Risk(json.RawMessage) Risk           { return t.risk }

// pathAccess reads {"path": ...} from the input: a read, or a write when
// write is set.
func pathAccess(write bool) func(json.RawMessage) Access {
	return func(input json.RawMessage) Access {
		var in struct{ Path string }
		if json.Unmarshal(input, &in) != nil || in.Path == "" {
			return Access{}
		}
		if write {
			return Access{WritePaths: []string{in.Path}}
		}
		return Access{ReadPaths: []string{in.Path}}
	}
}

// recordingHost records progress and answers permission prompts with a
// script.
type recordingHost struct {
	NoHost
	answer    *PermissionResponse
	mu        sync.Mutex
	titles    []string
	ends      []string
	cancels   []func()
	prompts   []PermissionRequest
	began     chan struct{}
	beganOnce sync.Once
}

func newRecordingHost() *recordingHost { return &recordingHost{began: make(chan struct{})} }

func (h *recordingHost) BeginProgress(_ context.Context, title string, cancel func()) ProgressEnder {
	h.mu.Lock()
	h.titles = append(h.titles, title)
	h.cancels = append(h.cancels, cancel)
	h.mu.Unlock()
	h.beganOnce.Do(func() { close(h.began) })
	return &recordedProgress{h: h}
}

func (h *recordingHost) RequestPermission(_ context.Context, req PermissionRequest) (PermissionResponse, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.prompts = append(h.prompts, req)
	if h.answer == nil {
		return PermissionResponse{}, ErrCannotAsk
	}
	return *h.answer, nil
}

type recordedProgress struct{ h *recordingHost }

func (p *recordedProgress) Report(string) {}
func (p *recordedProgress) End(msg string) {
	p.h.mu.Lock()
	p.h.ends = append(p.h.ends, msg)
	p.h.mu.Unlock()
}

func call(t *testing.T, p *Pipeline, host Host, name, input string) *Response {
	t.Helper()
	resp, err := p.Call(context.Background(), host, Request{CallID: "c1", Name: name, Input: json.RawMessage(input)})
	if err != nil {
		t.Fatalf("Call(%s, %s): %v", name, input, err)
	}
	if resp.CallID != "c1" {
		t.Errorf("CallID = %q, want c1", resp.CallID)
	}
	return resp
}

const readSchema = `{
	"type": "object",
	"properties": {
		"file_path": {"type": "string", "description": "The file to read"},
		"offset": {"type": "integer"},
		"limit": {"type": "integer", "minimum": 1},
		"mode": {"type": "string", "enum": ["fast", "slow"]},
		"edits": {"type": "array", "items": {
			"type": "object",
			"properties": {"old_string": {"type": "string"}, "new_string": {"type": "string"}},
			"required": ["old_string", "new_string"]
		}}
	},
	"required": ["file_path"],
	"additionalProperties": false
}`

func TestValidationNamesTheField(t *testing.T) {
	tests := []struct {
		name, input, want string
	}{
		{"missing required", `{}`, "Error: invalid input for Read: file_path: missing required field"},
		{"null input is an empty object", `null`, "Error: invalid input for Read: file_path: missing required field"},
		{"wrong type", `{"file_path":"a","limit":"five"}`, "Error: invalid input for Read: limit: expected integer, got string"},
		{"number for integer", `{"file_path":"a","offset":1.5}`, "offset: expected integer, got number"},
		{"enum", `{"file_path":"a","mode":"quick"}`, `mode: expected one of "fast", "slow", got "quick"`},
		{"bound", `{"file_path":"a","limit":-1}`, "limit: expected at least 1, got -1"},
		{"nested", `{"file_path":"a","edits":[{"old_string":"x","new_string":"y"},{"old_string":"x"}]}`, "edits[1].new_string: missing required field"},
		{"unknown field with another problem", `{"file_path":"a","path":"b","mode":"quick"}`, "path: unknown field"},
		{"not an object", `["a"]`, "input: expected object, got array"},
		{"not JSON", `{"file_path":`, "Error: invalid input for Read: the input is not valid JSON"},
		{"several problems", `{"limit":"x","mode":1}`, "file_path: missing required field; limit: expected integer, got string; mode: expected string, got number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			read := &fakeTool{name: "Read", schema: readSchema}
			reg := NewRegistry()
			reg.Register(CategoryCore, read)
			resp := call(t, NewPipeline(reg, nil), nil, "Read", tt.input)
			if !resp.IsError || !strings.Contains(resp.Text(), tt.want) {
				t.Errorf("result = %q (isError %v), want it to contain %q", resp.Text(), resp.IsError, tt.want)
			}
			if n := read.calls.Load(); n != 0 {
				t.Errorf("the tool ran %d times on invalid input", n)
			}
		})
	}

	t.Run("valid input runs", func(t *testing.T) {
		read := &fakeTool{name: "Read", schema: readSchema}
		reg := NewRegistry()
		reg.Register(CategoryCore, read)
		resp := call(t, NewPipeline(reg, nil), nil, "read_file", `{"file_path":"a","limit":3,"mode":"fast"}`)
		if resp.IsError || resp.Text() != `ran with {"file_path":"a","limit":3,"mode":"fast"}` {
			t.Errorf("result = %q (isError %v)", resp.Text(), resp.IsError)
		}
	})
}

func TestValidatorDrafts(t *testing.T) {
	tests := []struct{ name, schema string }{
		{"no $schema (2020-12)", `{"type":"object","properties":{"n":{"type":"integer"}}}`},
		{"draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"n":{"type":"integer"}}}`},
		{"draft-04", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"n":{"type":"integer"}}}`},
		{"2020-12 with $defs", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"count":{"type":"integer"}},"properties":{"n":{"$ref":"#/$defs/count"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := &fakeTool{name: "T", schema: tt.schema}
			res, err := NewValidator().Validate(tool, []byte(`{"n":"seven"}`), nil)
			if err != nil {
				t.Fatal(err)
			}
			if res == nil || !strings.Contains(res.Text(), "n: expected integer, got string") {
				t.Errorf("result = %v", res.Text())
			}
			if res, err := NewValidator().Validate(tool, []byte(`{"n":7}`), nil); res != nil || err != nil {
				t.Errorf("valid input: %v, %v", res.Text(), err)
			}
		})
	}
}

// TestSchemasCompiledOnFirstCall: no schema is compiled before a call; the
// first calls of a tool, made at once, compile its schema once between them
// (go test -race) and every one of them is checked against it; tools not
// called stay uncompiled, and a broken schema is reported on its call.
func TestSchemasCompiledOnFirstCall(t *testing.T) {
	reg := NewRegistry()
	broken := &fakeTool{name: "Broken", schema: `{"type": 5}`}
	fine := &fakeTool{name: "Fine", schema: `{"type":"object","properties":{"n":{"type":"integer"}}}`}
	idle := &fakeTool{name: "Idle", schema: `{"type":"object"}`}
	reg.Register(CategoryExtras, broken, fine, idle)
	p := NewPipeline(reg, nil)
	var mu sync.Mutex
	compiles := map[string]int{}
	p.validator.compile = func(name string, source []byte) (*jsonschema.Schema, error) {
		mu.Lock()
		compiles[name]++
		mu.Unlock()
		return compile(name, source)
	}
	count := func(name string) int {
		mu.Lock()
		defer mu.Unlock()
		return compiles[name]
	}

	calls := []struct {
		input     string
		wantError bool
	}{
		{`{"n":"x"}`, true},
		{`{"n":7}`, false},
		{`{"n":[1]}`, true},
		{`{}`, false},
	}
	errs := make([]error, 4*len(calls))
	resps := make([]*Response, len(errs))
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() {
			resps[i], errs[i] = p.Call(context.Background(), nil, Request{CallID: "c", Name: "Fine", Input: json.RawMessage(calls[i%len(calls)].input)})
		})
	}
	wg.Wait()
	for i, err := range errs {
		tt := calls[i%len(calls)]
		if err != nil {
			t.Fatalf("Fine %s: %v", tt.input, err)
		}
		if resps[i].IsError != tt.wantError {
			t.Errorf("Fine %s: IsError = %v, want %v (%q)", tt.input, resps[i].IsError, tt.wantError, resps[i].Text())
		}
	}
	if n := count("Fine"); n != 1 {
		t.Errorf("Fine's schema compiled %d times over %d first calls, want once", n, len(errs))
	}
	if n := count("Idle"); n != 0 {
		t.Errorf("the schema of Idle, never called, compiled %d times", n)
	}
	for range 2 {
		if resp := call(t, p, nil, "Broken", `{}`); !resp.IsError || !strings.Contains(resp.Text(), "its own input schema is broken") {
			t.Errorf("Broken: %q", resp.Text())
		}
	}
	if n := count("Broken"); n != 1 {
		t.Errorf("Broken's schema compiled %d times over 2 calls, want once", n)
	}
}

func TestBrokenSchemaFailsOnlyItsTool(t *testing.T) {
	for _, schema := range []string{
		`{"type": 5}`,
		// Valid in 2020-12, not in draft-04, whose exclusiveMinimum is a
		// boolean: the draft's own metaschema is used.
		`{"$schema": "http://json-schema.org/draft-04/schema#", "type": "object", "exclusiveMinimum": 5}`,
		`{"type": "object", "properties": {"a": {"$ref": "https://schemas.example.invalid/a.json"}}}`,
		`{"type": "object"`,
	} {
		reg := NewRegistry()
		broken := &fakeTool{name: "Broken", schema: schema}
		fine := &fakeTool{name: "Fine", schema: `{"type":"object"}`}
		reg.Register(CategoryExtras, broken, fine)
		p := NewPipeline(reg, nil)

		for range 2 { // the second call meets the cached failure
			resp := call(t, p, nil, "Broken", `{}`)
			if !resp.IsError || !strings.Contains(resp.Text(), "its own input schema is broken") {
				t.Errorf("Broken %s: %q", schema, resp.Text())
			}
		}
		if broken.calls.Load() != 0 {
			t.Errorf("a tool with the broken schema %s ran", schema)
		}
		if resp := call(t, p, nil, "Fine", `{}`); resp.IsError {
			t.Errorf("Fine: %q", resp.Text())
		}
	}
}

func TestSchemaCacheFollowsTheRegistry(t *testing.T) {
	reg := NewRegistry()
	p := NewPipeline(reg, nil)
	schema := func(field string) string {
		return `{"type":"object","properties":{"` + field + `":{"type":"string"}},"required":["` + field + `"]}`
	}
	reg.Register(CategoryMCP, &fakeTool{name: "mcp__srv__tool", schema: schema("a")})
	if resp := call(t, p, nil, "mcp__srv__tool", `{"b":"x"}`); !strings.Contains(resp.Text(), "a: missing required field") {
		t.Fatalf("first schema: %q", resp.Text())
	}
	// The server re-lists the tool with another schema.
	reg.Register(CategoryMCP, &fakeTool{name: "mcp__srv__tool", schema: schema("b")})
	if resp := call(t, p, nil, "mcp__srv__tool", `{"b":"x"}`); resp.IsError {
		t.Fatalf("the changed schema was not used: %q", resp.Text())
	}
	// The server goes away; the next compile drops its schema.
	reg.RemovePrefix("mcp__srv__")
	reg.Register(CategoryCore, &fakeTool{name: "Other"})
	call(t, p, nil, "Other", `{}`)
	p.validator.mu.Lock()
	_, kept := p.validator.compiled["mcp__srv__tool"]
	p.validator.mu.Unlock()
	if kept {
		t.Error("the schema of a removed tool stayed cached")
	}
}

func TestUnknownAndDisabledTools(t *testing.T) {
	reg := NewRegistry()
	reg.Register(CategoryCore, &fakeTool{name: "Read"}, &fakeTool{name: "Write"})
	if err := reg.SetEnabled([]string{"Write"}, false); err != nil {
		t.Fatal(err)
	}
	p := NewPipeline(reg, nil)
	tests := []struct{ name, want string }{
		{"Raed", `Error: no tool named "Raed". Did you mean Read?`},
		{"Nothing", `Error: no tool named "Nothing". Call toolhost/listTools`},
		{"Write", "Error: the tool Write is disabled"},
	}
	for _, tt := range tests {
		if resp := call(t, p, nil, tt.name, `{}`); !resp.IsError || !strings.Contains(resp.Text(), tt.want) {
			t.Errorf("%s: %q, want it to contain %q", tt.name, resp.Text(), tt.want)
		}
	}
}

// fakeChecker answers permission checks with a fixed outcome and records
// what it was asked.
type fakeChecker struct {
	outcome PermissionOutcome
	err     error
	mu      sync.Mutex
	seen    []PermissionCall
}

func (c *fakeChecker) Decide(Host, PermissionCall) PermissionDecision {
	if c.outcome.Allow {
		return PermissionDecision{Verdict: VerdictAllow}
	}
	return PermissionDecision{Verdict: VerdictDeny, Reason: c.outcome.Message}
}

func (c *fakeChecker) Check(_ context.Context, _ Host, call PermissionCall) (PermissionOutcome, error) {
	c.mu.Lock()
	c.seen = append(c.seen, call)
	c.mu.Unlock()
	return c.outcome, c.err
}

func TestPermission(t *testing.T) {
	root := t.TempDir()
	resolve := func(s string) (string, error) { return filepath.Join(root, s), nil }
	tests := []struct {
		name     string
		checker  *fakeChecker
		wantText string
		wantRan  bool
		wantErr  bool
	}{
		{"allowed", &fakeChecker{outcome: PermissionOutcome{Allow: true}}, `ran with {"path":"a.txt"}`, true, false},
		{"denied with a message", &fakeChecker{outcome: PermissionOutcome{Message: "Error: Write(a.txt) is denied by a rule in settings; do not retry"}},
			"Error: Write(a.txt) is denied by a rule in settings; do not retry", false, true},
		{"denied without a message", &fakeChecker{}, "Error: permission to run Write was denied", false, true},
		{"user changed the input", &fakeChecker{outcome: PermissionOutcome{Allow: true, UpdatedInput: json.RawMessage(`{"path":"b.txt"}`)}},
			`ran with {"path":"b.txt"}`, true, false},
		{"user changed the input into an invalid one", &fakeChecker{outcome: PermissionOutcome{Allow: true, UpdatedInput: json.RawMessage(`{"path":7}`)}},
			"Error: the input as the user changed it is invalid for Write: path: expected string, got number", false, true},
		{"checker failed", &fakeChecker{err: errors.New("rules unreadable")}, "permission check for Write failed (rules unreadable)", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			write := &accessTool{
				fakeTool: &fakeTool{name: "Write", side: SideEffectMutating, schema: `{"type":"object","properties":{"path":{"type":"string"}}}`},
				access:   pathAccess(true),
				risk:     RiskCritical,
			}
			reg := NewRegistry()
			reg.Register(CategoryCore, write)
			p := NewPipeline(reg, nil, WithPermissions(tt.checker), WithPathResolver(resolve))
			resp := call(t, p, nil, "Write", `{"path":"a.txt"}`)
			if !strings.Contains(resp.Text(), tt.wantText) || resp.IsError != tt.wantErr {
				t.Errorf("result = %q (isError %v), want %q (isError %v)", resp.Text(), resp.IsError, tt.wantText, tt.wantErr)
			}
			if ran := write.calls.Load() == 1; ran != tt.wantRan {
				t.Errorf("ran = %v, want %v", ran, tt.wantRan)
			}
			// Input the user changed is checked again, as it will run.
			if want := 1 + btoi(len(tt.checker.outcome.UpdatedInput) > 0 && tt.wantRan); len(tt.checker.seen) != want {
				t.Fatalf("checker asked %d times, want %d", len(tt.checker.seen), want)
			}
			got := tt.checker.seen[0]
			if got.CallID != "c1" || got.Tool != Tool(write) || got.Risk != RiskCritical ||
				len(got.Access.WritePaths) != 1 || got.Access.WritePaths[0] != filepath.Join(root, "a.txt") {
				t.Errorf("checker saw %+v", got)
			}
		})
	}

	t.Run("the editor's review travels with the call", func(t *testing.T) {
		for _, review := range []bool{false, true} {
			var got []bool
			edit := &fakeTool{name: "Edit", side: SideEffectMutating, run: func(_ context.Context, c *Call) (*Result, error) {
				got = append(got, c.ReviewEdits)
				return TextResult("ok"), nil
			}}
			reg := NewRegistry()
			reg.Register(CategoryCore, edit)
			checker := &fakeChecker{outcome: PermissionOutcome{Allow: true, Review: review}}
			call(t, NewPipeline(reg, nil, WithPermissions(checker)), nil, "Edit", `{}`)
			if len(got) != 1 || got[0] != review {
				t.Errorf("checker's Review %v: the tool saw ReviewEdits %v", review, got)
			}
		}
	})

	t.Run("risk defaults to the side effect", func(t *testing.T) {
		checker := &fakeChecker{outcome: PermissionOutcome{Allow: true}}
		reg := NewRegistry()
		reg.Register(CategoryNetwork, &fakeTool{name: "Fetch", side: SideEffectNetwork})
		call(t, NewPipeline(reg, nil, WithPermissions(checker)), nil, "Fetch", `{}`)
		if len(checker.seen) != 1 || checker.seen[0].Risk != RiskHigh {
			t.Errorf("checker saw %+v, want risk high", checker.seen)
		}
	})
}

// hookedPipeline returns a pipeline over reg whose settings run the script
// body as a hook of event for every tool, with the given timeout (seconds).
// The command is relative: hooks run in the pipeline's work folder.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func hookedPipeline(t *testing.T, reg *Registry, event, body string, timeout float64) *Pipeline {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(dir, event+".sh")
	if err := os.WriteFile(script, []byte("#!/bin/bash\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	set := settings.Defaults()
	set.Hooks = map[string][]settings.HookMatcher{event: {{Matcher: "*", Hooks: []settings.HookCommand{{Type: "command", Command: "./" + event + ".sh", Timeout: timeout}}}}}
	return NewPipeline(reg, nil, WithSettings(func() *settings.Settings { return set }), WithWorkDir(func() string { return dir }))
}

// fixedMode is a ModeController stuck in one mode.
type fixedMode string

func (m fixedMode) Mode() string         { return string(m) }
func (m fixedMode) SetMode(string) error { return errors.New("fixed") }

func TestHooksInThePipeline(t *testing.T) {
	tests := []struct {
		name    string
		event   string
		body    string
		timeout float64
		// failing makes the tool return an error result; structured gives
		// its result a structured part.
		failing    bool
		structured bool
		mode       string
		answer     *PermissionResponse
		// want: the result text; ran: whether the tool ran.
		wantText     string
		wantError    bool
		ran          bool
		wantMessages []string
		wantStop     string
		wantPrompts  int
	}{
		{
			name: "exit 2 blocks with stderr", event: "PreToolUse",
			body:      `echo "edits to generated code are not allowed" >&2; exit 2`,
			wantText:  "Error: a PreToolUse hook blocked Edit: edits to generated code are not allowed. Do not retry",
			wantError: true,
		},
		{
			name: "JSON deny", event: "PreToolUse",
			body:     `echo '{"suppressOutput":true,"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"frozen branch"}}'`,
			wantText: "Error: a PreToolUse hook blocked Edit: frozen branch.", wantError: true,
		},
		{
			name: "updated input reaches the tool", event: "PreToolUse",
			body:     `echo '{"suppressOutput":true,"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"path":"rewritten.go"}}}'`,
			wantText: `ran with {"path":"rewritten.go"}`, ran: true,
		},
		{
			name: "invalid updated input", event: "PreToolUse",
			body:     `echo '{"suppressOutput":true,"hookSpecificOutput":{"updatedInput":{"path":["x"]}}}'`,
			wantText: "Error: the input as a PreToolUse hook rewrote it is invalid for Edit: path: expected string, got array", wantError: true,
		},
		{
			name: "context before the call is appended", event: "PreToolUse",
			body:     `echo '{"suppressOutput":true,"hookSpecificOutput":{"additionalContext":"the style guide wants tabs"}}'`,
			wantText: "ran with {\"path\":\"a.go\"}\n[PreToolUse hook] the style guide wants tabs", ran: true,
		},
		{
			name: "context after the call is appended", event: "PostToolUse",
			body:     `echo '{"suppressOutput":true,"hookSpecificOutput":{"additionalContext":"gofmt reformatted a.go"}}'`,
			wantText: "ran with {\"path\":\"a.go\"}\n[PostToolUse hook] gofmt reformatted a.go", ran: true,
		},
		{
			name: "output shown to the user unless suppressed", event: "PostToolUse",
			body:     `echo '{"hookSpecificOutput":{"additionalContext":"c"}}'`,
			wantText: "ran with {\"path\":\"a.go\"}\n[PostToolUse hook] c", ran: true,
			wantMessages: []string{`{"hookSpecificOutput":{"additionalContext":"c"}}`},
		},
		{
			name: "suppressed output", event: "PostToolUse",
			body:     `echo '{"suppressOutput":true}'`,
			wantText: `ran with {"path":"a.go"}`, ran: true,
		},
		{
			name: "block after the call feeds the reason back", event: "PostToolUse",
			body:     `echo "vet: a.go:1: unreachable code" >&2; exit 2`,
			wantText: "ran with {\"path\":\"a.go\"}\n[PostToolUse hook] blocked: vet: a.go:1: unreachable code", ran: true,
		},
		{
			name: "failure hooks see the error", event: "PostToolUseFailure",
			body:     `input=$(cat); case "$input" in *'"error":"Error: disk full"'*) echo '{"suppressOutput":true,"hookSpecificOutput":{"additionalContext":"free some space"}}';; esac`,
			failing:  true,
			wantText: "Error: disk full\n[PostToolUseFailure hook] free some space", wantError: true, ran: true,
		},
		{
			name: "hooks after the call see the structured result", event: "PostToolUse",
			body:       `input=$(cat); case "$input" in *'"tool_response":{"filePath":"a.go"}'*) echo '{"suppressOutput":true,"hookSpecificOutput":{"additionalContext":"saw it"}}';; esac`,
			structured: true,
			wantText:   "ran with {\"path\":\"a.go\"}\n[PostToolUse hook] saw it", ran: true,
		},
		{
			name: "garbage on stdout is plain text", event: "PreToolUse",
			body:     `printf '}{ not json'`,
			wantText: `ran with {"path":"a.go"}`, ran: true, wantMessages: []string{"}{ not json"},
		},
		{
			name: "continue false stops the agent", event: "PostToolUse",
			body:     `echo '{"suppressOutput":true,"continue":false,"stopReason":"tests are red"}'`,
			wantText: `ran with {"path":"a.go"}`, ran: true, wantStop: "tests are red",
		},
		{
			name: "continue false before the call stops it", event: "PreToolUse",
			body:     `echo '{"suppressOutput":true,"continue":false,"stopReason":"quota reached"}'`,
			wantText: "Error: a PreToolUse hook stopped the agent before Edit ran: quota reached", wantError: true, wantStop: "quota reached",
		},
		{
			name: "a hanging hook is killed at its timeout", event: "PreToolUse",
			body: `sleep 300`, timeout: 1,
			wantText: `ran with {"path":"a.go"}`, ran: true,
			wantMessages: []string{"PreToolUse hook `./PreToolUse.sh` did not finish within 1s and was stopped; the call went on without it"},
		},
		{
			name: "ask without a dialog denies", event: "PreToolUse",
			body:     `echo '{"suppressOutput":true,"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"touches CI config"}}'`,
			wantText: "the client cannot show dialogs, so the call was denied", wantError: true, wantPrompts: 1,
		},
		{
			name: "ask in dontAsk mode denies without a prompt", event: "PreToolUse",
			body:     `echo '{"suppressOutput":true,"hookSpecificOutput":{"permissionDecision":"ask"}}'`,
			mode:     ModeDontAsk,
			answer:   &PermissionResponse{Decision: DecisionAllow},
			wantText: "the permission mode dontAsk denies what would need asking", wantError: true,
		},
		{
			name: "ask answered allow", event: "PreToolUse",
			body:     `echo '{"suppressOutput":true,"hookSpecificOutput":{"permissionDecision":"ask"}}'`,
			answer:   &PermissionResponse{Decision: DecisionAllow, UpdatedInput: map[string]any{"path": "chosen.go"}},
			wantText: `ran with {"path":"chosen.go"}`, ran: true, wantPrompts: 1,
		},
		{
			name: "ask answered deny", event: "PreToolUse",
			body:     `echo '{"suppressOutput":true,"hookSpecificOutput":{"permissionDecision":"ask"}}'`,
			answer:   &PermissionResponse{Decision: DecisionDeny, Message: "not now"},
			wantText: "Error: the user denied Edit: not now.", wantError: true, wantPrompts: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			edit := &fakeTool{name: "Edit", side: SideEffectMutating, schema: `{"type":"object","properties":{"path":{"type":"string"}}}`}
			if tt.failing {
				edit.run = func(context.Context, *Call) (*Result, error) { return ErrorResult("disk full"), nil }
			}
			if tt.structured {
				edit.run = func(_ context.Context, call *Call) (*Result, error) {
					res := TextResult("ran with " + string(call.Input))
					res.Structured = map[string]any{"filePath": "a.go"}
					return res, nil
				}
			}
			reg := NewRegistry()
			reg.Register(CategoryCore, edit)
			p := hookedPipeline(t, reg, tt.event, tt.body, tt.timeout)
			if tt.mode != "" {
				p.Modes = fixedMode(tt.mode)
			}
			host := newRecordingHost()
			host.answer = tt.answer

			resp := call(t, p, host, "Edit", `{"path":"a.go"}`)
			if resp.Text() != tt.wantText && !(tt.wantError && strings.Contains(resp.Text(), tt.wantText)) {
				t.Errorf("text = %q\nwant %q", resp.Text(), tt.wantText)
			}
			if resp.IsError != tt.wantError {
				t.Errorf("isError = %v, want %v", resp.IsError, tt.wantError)
			}
			if ran := edit.calls.Load() == 1; ran != tt.ran {
				t.Errorf("tool ran = %v, want %v", ran, tt.ran)
			}
			if strings.Join(resp.HookMessages, "\n") != strings.Join(tt.wantMessages, "\n") {
				t.Errorf("hook messages = %q\nwant %q", resp.HookMessages, tt.wantMessages)
			}
			if resp.StopReason != tt.wantStop {
				t.Errorf("stop reason = %q, want %q", resp.StopReason, tt.wantStop)
			}
			if len(host.prompts) != tt.wantPrompts {
				t.Errorf("prompts = %d, want %d", len(host.prompts), tt.wantPrompts)
			}
		})
	}
}

func TestProgressBeginAndEnd(t *testing.T) {
	tests := []struct {
		name, input, title, end string
		fail                    bool
	}{
		{"success", `{"path":"src/a.go"}`, "Write: a.go", "done in ", false},
		{"error result", `{"path":"src/b.go"}`, "Write: b.go", "failed after ", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			write := &accessTool{fakeTool: &fakeTool{name: "Write", side: SideEffectMutating}, access: pathAccess(true)}
			if tt.fail {
				write.run = func(context.Context, *Call) (*Result, error) { return ErrorResult("no"), nil }
			}
			reg := NewRegistry()
			reg.Register(CategoryCore, write)
			host := newRecordingHost()
			call(t, NewPipeline(reg, nil), host, "Write", tt.input)
			if len(host.titles) != 1 || host.titles[0] != tt.title {
				t.Errorf("progress titles = %q, want [%q]", host.titles, tt.title)
			}
			if len(host.ends) != 1 || !strings.HasPrefix(host.ends[0], tt.end) {
				t.Errorf("progress ends = %q, want one starting %q", host.ends, tt.end)
			}
		})
	}
}

// blockingTool runs until its context ends, telling started when it begins.
func blockingTool(name string, started chan<- string) *fakeTool {
	return &fakeTool{name: name, run: func(ctx context.Context, call *Call) (*Result, error) {
		started <- call.ID
		<-ctx.Done()
		return nil, ctx.Err()
	}}
}

func TestProgressCancelEndsOnlyTheCall(t *testing.T) {
	started := make(chan string, 1)
	reg := NewRegistry()
	reg.Register(CategoryCore, blockingTool("Wait", started))
	host := newRecordingHost()
	p := NewPipeline(reg, nil)

	type outcome struct {
		resp *Response
		err  error
	}
	done := make(chan outcome)
	go func() {
		resp, err := p.Call(context.Background(), host, Request{CallID: "w", Name: "Wait", Input: json.RawMessage(`{}`)})
		done <- outcome{resp, err}
	}()
	<-started
	host.mu.Lock()
	cancel := host.cancels[0]
	host.mu.Unlock()
	cancel() // window/workDoneProgress/cancel
	got := <-done
	if got.err != nil {
		t.Fatalf("a call cancelled from the editor's progress is a result, not %v", got.err)
	}
	if !got.resp.IsError || !strings.HasPrefix(got.resp.Text(), "Error: interrupted: the user cancelled Wait") {
		t.Errorf("result = %q", got.resp.Text())
	}
	if len(host.ends) != 1 || !strings.HasPrefix(host.ends[0], "cancelled after") {
		t.Errorf("progress ends = %q", host.ends)
	}
}

func TestCancelledCallReturnsTheContextError(t *testing.T) {
	started := make(chan string, 1)
	reg := NewRegistry()
	reg.Register(CategoryCore, blockingTool("Wait", started))
	p := NewPipeline(reg, nil)

	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error)
	go func() {
		_, err := p.Call(ctx, nil, Request{Name: "Wait"})
		errc <- err
	}()
	<-started
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if _, err := p.Call(ctx, nil, Request{Name: "Wait"}); !errors.Is(err, context.Canceled) {
		t.Errorf("a call on a cancelled context: err = %v", err)
	}
}

func TestToolFailuresBecomeResults(t *testing.T) {
	tests := []struct {
		name string
		run  func(context.Context, *Call) (*Result, error)
		want string
	}{
		{"go error", func(context.Context, *Call) (*Result, error) { return nil, errors.New("socket closed") },
			"Error: Crashy failed: socket closed. This is a failure of the tool host"},
		{"full disk", func(context.Context, *Call) (*Result, error) {
			return nil, fmt.Errorf("write a.txt: %w", &fs.PathError{Op: "write", Path: ".tmp-a.txt", Err: syscall.ENOSPC})
		}, "Error: Crashy failed: write a.txt: write .tmp-a.txt: no space left on device. The disk (or the user's quota) is full: retrying fails the same way until space is freed. Tell the user."},
		{"read-only file system", func(context.Context, *Call) (*Result, error) {
			return nil, &fs.PathError{Op: "openat", Path: "a.txt", Err: syscall.EROFS}
		}, "Error: Crashy failed: openat a.txt: read-only file system. The file system there is mounted read-only"},
		{"permission denied", func(context.Context, *Call) (*Result, error) {
			return nil, &fs.PathError{Op: "openat", Path: "a.txt", Err: syscall.EACCES}
		}, "Error: Crashy failed: openat a.txt: permission denied. The system refused the access"},
		{"panic", func(context.Context, *Call) (*Result, error) { panic("index out of range") },
			"Error: Crashy failed: the tool crashed: index out of range."},
		{"nil result", func(context.Context, *Call) (*Result, error) { return nil, nil }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := NewRegistry()
			reg.Register(CategoryCore, &fakeTool{name: "Crashy", run: tt.run})
			resp := call(t, NewPipeline(reg, nil), nil, "Crashy", `{}`)
			if !strings.HasPrefix(resp.Text(), tt.want) || resp.IsError != (tt.want != "") {
				t.Errorf("result = %q (isError %v), want %q", resp.Text(), resp.IsError, tt.want)
			}
		})
	}
}

// BenchmarkValidate compares validating with the schema compiled once (what
// the pipeline does) against compiling it for every call.
func BenchmarkValidate(b *testing.B) {
	tool := &fakeTool{name: "Read", schema: readSchema}
	input := []byte(`{"file_path":"/w/a.go","offset":10,"limit":200,"edits":[{"old_string":"a","new_string":"b"}]}`)
	b.Run("cached", func(b *testing.B) {
		v := NewValidator()
		for b.Loop() {
			if res, err := v.Validate(tool, input, nil); res != nil || err != nil {
				b.Fatal(res.Text(), err)
			}
		}
	})
	b.Run("compiled_per_call", func(b *testing.B) {
		for b.Loop() {
			if res, err := NewValidator().Validate(tool, input, nil); res != nil || err != nil {
				b.Fatal(res.Text(), err)
			}
		}
	})
}

// TestSchemaLibraryCompilesNothingAtStart guards the patch in
// third_party/jsonschema: the library's package initialisation must not
// compile the drafts' metaschemas (21,000 allocations and about 4 ms of
// every start before the patch). It reads the allocation count, which is
// exact, from the runtime's init trace of this test binary.
func TestSchemaLibraryCompilesNothingAtStart(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("running the test binary: %v\n%s", err, out)
	}
	re := regexp.MustCompile(`init github.com/santhosh-tekuri/jsonschema/v6 @.*, (\d+) allocs`)
	m := re.FindSubmatch(out)
	if m == nil {
		t.Fatalf("no init trace of the schema library in:\n%s", out)
	}
	if allocs, _ := strconv.Atoi(string(m[1])); allocs > 1000 {
		t.Errorf("the schema library's init made %d allocations: it compiles its metaschemas at start again (see third_party/jsonschema/PATCHES.md)", allocs)
	}
}

// precheckTool is a fakeTool with a check that runs before the prompt.
type precheckTool struct {
	*fakeTool
	fail string
}

func (t *precheckTool) Precheck(context.Context, Host, json.RawMessage) *Result {
	if t.fail == "" {
		return nil
	}
	return ErrorResult("%s", t.fail)
}

func TestPrecheckRunsBeforeThePrompt(t *testing.T) {
	tests := []struct {
		name      string
		fail      string
		wantAsked int
		wantText  string
	}{
		{"a failing check ends the call unasked", "the file changed since it was read; Read it again.", 0, "Error: the file changed since it was read"},
		{"a passing check leaves the prompt", "", 1, "ran with"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := &precheckTool{fakeTool: &fakeTool{name: "Edit", side: SideEffectMutating}, fail: tt.fail}
			checker := &fakeChecker{outcome: PermissionOutcome{Allow: true}}
			reg := NewRegistry()
			reg.Register(CategoryCore, tool)
			resp := call(t, NewPipeline(reg, nil, WithPermissions(checker)), nil, "Edit", `{}`)
			if !strings.Contains(resp.Text(), tt.wantText) {
				t.Errorf("result = %q, want %q", resp.Text(), tt.wantText)
			}
			if len(checker.seen) != tt.wantAsked {
				t.Errorf("permission asked %d times, want %d", len(checker.seen), tt.wantAsked)
			}
		})
	}
}
