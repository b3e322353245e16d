package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/version"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/engine"
	"github.com/toolhost/toolhost/tools/fs"
	"github.com/toolhost/toolhost/tools/permission"
	"github.com/toolhost/toolhost/tools/state"
	"github.com/toolhost/toolhost/workspace"
)

// stepsTool reports three progress steps and fails when asked to.
type stepsTool struct{}

func (stepsTool) Name() string        { return "Steps" }
func (stepsTool) Description() string { return "Reports progress three times." }
func (stepsTool) InputSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"fail":{"type":"boolean"}}}`)
}
func (stepsTool) SideEffect() tools.SideEffect { return tools.SideEffectNone }
func (stepsTool) Execute(_ context.Context, call *tools.Call) (*tools.Result, error) {
	var in struct{ Fail bool }
	_ = json.Unmarshal(call.Input, &in)
	for _, step := range []string{"one", "two", "three"} {
		call.Progress.Report(step)
	}
	if in.Fail {
		return tools.ErrorResult("asked to fail; call again without fail."), nil
	}
	return &tools.Result{Content: []tools.Content{{Type: "text", Text: "done"}}, Structured: map[string]any{"steps": 3}}, nil
}

type fixture struct {
	dir     string
	reg     *tools.Registry
	session *sdk.ClientSession
}

// connect serves a registry of test and real tools in process and connects
// the Go SDK's client to it with opts.
func connect(t testing.TB, opts *sdk.ClientOptions) *fixture {
	t.Helper()
	dir := t.TempDir()
	reg := tools.NewRegistry()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("first\nsecond\nthird\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := workspace.New(dir)
	reg.Register(tools.CategoryCore, fs.NewRead(ws), fs.NewWrite(ws), stepsTool{})
	reg.Register(tools.CategoryState, state.NewAskUserQuestion())
	checker := permission.New(permission.Options{Workspace: ws})
	pipeline := engine.NewPipeline(reg, nil, engine.WithPermissions(checker), engine.WithModes(checker), engine.WithPathResolver(ws.Resolve))
	srv := New(reg, pipeline, nil)
	// A tool registered before the first adding of the tools is listed
	// by it, without a tools/list_changed: tests that register one and
	// wait for the notification start after it.
	<-srv.ready

	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	serverT, clientT := sdk.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, serverT); err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, opts).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return &fixture{dir: dir, reg: reg, session: cs}
}

func (f *fixture) call(t *testing.T, name string, args any, progressToken any) *sdk.CallToolResult {
	t.Helper()
	params := &sdk.CallToolParams{Name: name, Arguments: args}
	if progressToken != nil {
		params.SetProgressToken(progressToken)
	}
	res, err := f.session.CallTool(context.Background(), params)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func text(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// The handshake reports toolhost's one version, the one `toolhost version`
// prints.
func TestHandshakeReportsTheVersion(t *testing.T) {
	f := connect(t, nil)
	info := f.session.InitializeResult().ServerInfo
	if info.Name != "toolhost" || info.Version != version.String() {
		t.Errorf("serverInfo %+v, want toolhost %s", info, version.String())
	}
}

func TestListToolsWithAnnotations(t *testing.T) {
	f := connect(t, nil)
	res, err := f.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]*sdk.Tool{}
	for _, tl := range res.Tools {
		listed[tl.Name] = tl
	}
	for _, e := range f.reg.Entries(false) {
		tl, ok := listed[e.Tool.Name()]
		if !ok {
			t.Fatalf("%s not listed; listed %v", e.Tool.Name(), res.Tools)
		}
		want := tools.Annotations(e.Tool)
		a := tl.Annotations
		if a == nil || a.ReadOnlyHint != want.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint != want.DestructiveHint ||
			a.OpenWorldHint == nil || *a.OpenWorldHint != want.OpenWorldHint || a.IdempotentHint != want.IdempotentHint {
			t.Errorf("%s annotations = %+v, want %+v", tl.Name, a, want)
		}
		if tl.Description != e.Tool.Description() {
			t.Errorf("%s description = %q", tl.Name, tl.Description)
		}
		schema, _ := json.Marshal(tl.InputSchema)
		if !strings.Contains(string(schema), `"type":"object"`) {
			t.Errorf("%s schema = %s", tl.Name, schema)
		}
	}
	if len(listed) != len(f.reg.Entries(false)) {
		t.Errorf("listed %d tools, registry has %d", len(listed), len(f.reg.Entries(false)))
	}
}

func TestCallTool(t *testing.T) {
	var mu sync.Mutex
	var progress []string
	// progressed receives a value after each progress notification: the
	// client's SDK handles notifications on goroutines of their own, so
	// they may land after the call's result.
	progressed := make(chan struct{}, 16)
	f := connect(t, &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
		mu.Lock()
		progress = append(progress, req.Params.Message)
		mu.Unlock()
		progressed <- struct{}{}
	}})

	tests := []struct {
		name      string
		tool      string
		args      any
		wantError bool
		wantText  string
	}{
		{name: "success with structured content", tool: "Steps", args: map[string]any{}, wantText: "done"},
		{name: "Read numbers lines", tool: "Read", args: map[string]any{"file_path": "notes.txt", "offset": 2, "limit": 1}, wantText: "     2\tsecond"},
		{name: "Read of a missing file", tool: "Read", args: map[string]any{"file_path": "nope.txt"}, wantError: true, wantText: "Error: "},
		{name: "tool error is an error result", tool: "Steps", args: map[string]any{"fail": true}, wantError: true, wantText: "Error: asked to fail"},
		{name: "schema violation names the field", tool: "Read", args: map[string]any{"file_path": 3}, wantError: true, wantText: "file_path"},
		{name: "unknown tool", tool: "Nope", args: map[string]any{}, wantError: true, wantText: "Nope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			params := &sdk.CallToolParams{Name: tc.tool, Arguments: tc.args}
			res, err := f.session.CallTool(context.Background(), params)
			if err != nil {
				if tc.wantError && strings.Contains(err.Error(), tc.wantText) {
					return // the SDK refuses unknown tools itself
				}
				t.Fatal(err)
			}
			if res.IsError != tc.wantError || !strings.Contains(text(res), tc.wantText) {
				t.Fatalf("isError=%v text=%q, want isError=%v with %q", res.IsError, text(res), tc.wantError, tc.wantText)
			}
		})
	}

	t.Run("structured content", func(t *testing.T) {
		res := f.call(t, "Steps", map[string]any{}, nil)
		b, _ := json.Marshal(res.StructuredContent)
		if string(b) != `{"steps":3}` {
			t.Fatalf("structured = %s", b)
		}
	})

	t.Run("progress with a token", func(t *testing.T) {
		mu.Lock()
		progress = nil
		mu.Unlock()
		for len(progressed) > 0 {
			<-progressed
		}
		f.call(t, "Steps", map[string]any{}, "tok-1")
		// The deadline only keeps a lost notification from hanging the test.
		timeout := time.After(10 * time.Second)
		for range 3 {
			select {
			case <-progressed:
			case <-timeout:
			}
		}
		mu.Lock()
		defer mu.Unlock()
		for _, step := range []string{"one", "two", "three"} {
			if !slices.Contains(progress, step) {
				t.Fatalf("progress %q lacks %q", progress, step)
			}
		}
	})
}

func TestPermissionThroughElicitation(t *testing.T) {
	tests := []struct {
		name        string
		handler     func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error)
		wantCreated bool
		wantText    string
	}{
		{name: "client without elicitation is denied", wantText: "cannot show permission prompts"},
		{name: "user allows", wantCreated: true, wantText: "Created",
			handler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
				return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "allow"}}, nil
			}},
		{name: "user picks deny", wantText: "denied",
			handler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
				return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "deny"}}, nil
			}},
		{name: "user declines the form", wantText: "The user denied permission: write of",
			handler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
				return &sdk.ElicitResult{Action: "decline"}, nil
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var asked string
			var opts *sdk.ClientOptions
			if tc.handler != nil {
				opts = &sdk.ClientOptions{ElicitationHandler: func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
					asked = req.Params.Message
					return tc.handler(ctx, req)
				}}
			}
			f := connect(t, opts)
			res := f.call(t, "Write", map[string]any{"file_path": filepath.Join(f.dir, "made.txt"), "content": "made\n"}, nil)
			_, err := os.Stat(filepath.Join(f.dir, "made.txt"))
			if created := err == nil; created != tc.wantCreated {
				t.Fatalf("file created = %v, want %v (result %q)", created, tc.wantCreated, text(res))
			}
			if res.IsError == tc.wantCreated || !strings.Contains(text(res), tc.wantText) {
				t.Fatalf("isError=%v text=%q, want %q", res.IsError, text(res), tc.wantText)
			}
			if tc.handler != nil && (!strings.Contains(asked, "Write") || !strings.Contains(asked, "made.txt")) {
				t.Fatalf("the prompt %q does not show the tool and its input", asked)
			}
		})
	}
}

func TestAskUserQuestionThroughElicitation(t *testing.T) {
	f := connect(t, &sdk.ClientOptions{ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		schema, _ := json.Marshal(req.Params.RequestedSchema)
		if !strings.Contains(string(schema), `"Tabs"`) || !strings.Contains(string(schema), `"array"`) {
			return nil, errors.New("unexpected schema " + string(schema))
		}
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"q1": "Tabs", "q2": []any{"Go", "Rust"}}}, nil
	}})
	res := f.call(t, "AskUserQuestion", map[string]any{"questions": []any{
		map[string]any{"question": "Indent with?", "header": "Indent", "multiSelect": false, "options": []any{
			map[string]any{"label": "Tabs", "description": "one tab"}, map[string]any{"label": "Spaces", "description": "four spaces"}}},
		map[string]any{"question": "Which languages?", "header": "Langs", "multiSelect": true, "options": []any{
			map[string]any{"label": "Go", "description": ""}, map[string]any{"label": "Rust", "description": ""}, map[string]any{"label": "C", "description": ""}}},
	}}, nil)
	if res.IsError || !strings.Contains(text(res), "Tabs") || !strings.Contains(text(res), "Go, Rust") {
		t.Fatalf("AskUserQuestion: isError=%v %q", res.IsError, text(res))
	}
}

func TestToolListFollowsRegistry(t *testing.T) {
	changed := make(chan struct{}, 4)
	f := connect(t, &sdk.ClientOptions{ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
		changed <- struct{}{}
	}})
	f.reg.Register(tools.CategoryMCP, renamed{stepsTool{}, "mcp__srv__do it"})
	<-changed
	res, err := f.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Contains(names, "mcp__srv__do_it") {
		t.Fatalf("new tool not listed under its MCP-safe name: %v", names)
	}
	if got := text(f.call(t, "mcp__srv__do_it", map[string]any{}, nil)); got != "done" {
		t.Fatalf("call through the sanitised name: %q", got)
	}

	f.reg.RemovePrefix("mcp__srv__")
	<-changed
	res, err = f.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if tl.Name == "mcp__srv__do_it" {
			t.Fatal("removed tool still listed")
		}
	}
}

// renamed gives a tool another name.
type renamed struct {
	tools.Tool
	name string
}

func (r renamed) Name() string { return r.name }

func TestFollowsClientRoots(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	reg := tools.NewRegistry()
	reg.Register(tools.CategoryCore, stepsTool{})
	srv := New(reg, engine.NewPipeline(reg, nil), nil)
	got := make(chan []string, 2)
	srv.FollowClientRoots(func(paths []string) { got <- paths })

	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	serverT, clientT := sdk.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, serverT); err != nil {
		t.Fatal(err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	//lint:ignore SA1019 the server under test follows roots
	client.AddRoots(&sdk.Root{URI: "file://" + filepath.ToSlash(first)}, &sdk.Root{URI: "https://example.com/not-a-folder"})
	cs, err := client.Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	if paths := <-got; !slices.Equal(paths, []string{first}) {
		t.Fatalf("roots after the handshake = %v, want [%s]", paths, first)
	}

	//lint:ignore SA1019 the server under test follows roots
	client.AddRoots(&sdk.Root{URI: "file://" + filepath.ToSlash(second)})
	if paths := <-got; !slices.Equal(paths, []string{first, second}) {
		t.Fatalf("roots after a change = %v, want [%s %s]", paths, first, second)
	}
}
