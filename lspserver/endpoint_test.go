package lspserver

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/discovery"
	"github.com/toolhost/toolhost/internal/testnpm"
	"github.com/toolhost/toolhost/mcpserver"
	"github.com/toolhost/toolhost/session"
)

// fakeEditor answers the server's requests as an editor would: it allows
// every permission prompt, applies nothing but says it did, creates
// progress, and records what it saw. Responses to its own requests go to
// results.
type fakeEditor struct {
	c       *testClient
	results chan map[string]any

	mu       sync.Mutex
	prompts  []string
	edits    []map[string]any
	progress []string
	tools    []string // the latest toolhost/toolsChanged
	changed  chan struct{}
}

func newFakeEditor(c *testClient) *fakeEditor {
	e := &fakeEditor{c: c, results: make(chan map[string]any, 16), changed: make(chan struct{}, 64)}
	go e.loop()
	return e
}

func (e *fakeEditor) loop() {
	for m := range e.c.msgs {
		method, _ := m["method"].(string)
		params, _ := m["params"].(map[string]any)
		e.mu.Lock()
		switch method {
		case "":
			e.mu.Unlock()
			e.results <- m
			continue
		case "toolhost/requestPermission":
			e.prompts = append(e.prompts, params["title"].(string))
			e.c.send(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": map[string]any{"decision": "allow"}})
		case "workspace/applyEdit":
			e.edits = append(e.edits, params)
			e.c.send(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": map[string]any{"applied": true}})
		case "window/workDoneProgress/create":
			e.c.send(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": nil})
		case "toolhost/toolsChanged":
			e.tools = nil
			for _, n := range params["tools"].([]any) {
				e.tools = append(e.tools, n.(string))
			}
		case "$/progress":
			v := params["value"].(map[string]any)
			msg, _ := v["message"].(string)
			title, _ := v["title"].(string)
			e.progress = append(e.progress, v["kind"].(string)+" "+title+msg)
		}
		e.mu.Unlock()
		select {
		case e.changed <- struct{}{}:
		default:
		}
	}
	close(e.results)
}

// waitFor waits until cond holds of what the editor saw.
func (e *fakeEditor) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for {
		e.mu.Lock()
		ok := cond()
		e.mu.Unlock()
		if ok {
			return
		}
		if _, open := await(e.c, what, e.changed); !open {
			t.Fatalf("the server ended before %s", what)
		}
	}
}

func (e *fakeEditor) result(t *testing.T) map[string]any {
	t.Helper()
	m, ok := await(e.c, "a reply from the server", e.results)
	if !ok {
		t.Fatal("the server closed its output")
	}
	return m
}

// tokenClient adds a bearer token to each request.
type tokenClient struct{ token string }

func (tc tokenClient) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+tc.token)
	return http.DefaultTransport.RoundTrip(r)
}

func textOf(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestAgentEndpoint: an agent's calls through the session's MCP endpoint
// run in the editor session. Its Read sees the unsaved buffer, its Write
// is asked in the editor naming the agent and arrives as
// workspace/applyEdit, a wrong token is refused, `toolhost mcp --attach`
// finds the session by folder and passes calls and cancellation through,
// and the session file is private and gone after exit.
func TestAgentEndpoint(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("on disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startServer(t, Options{AgentEndpoint: true, OnSession: func(*session.Session) {}})
	c.request(0, "initialize", map[string]any{"rootPath": root, "clientInfo": map[string]any{"name": "Test Editor"}, "capabilities": map[string]any{
		"workspace":    map[string]any{"applyEdit": true},
		"window":       map[string]any{"workDoneProgress": true},
		"experimental": map[string]any{"toolhost": map[string]any{"requestPermission": true}},
	}})
	if m := c.next(); m["error"] != nil {
		t.Fatalf("initialize: %v", m["error"])
	}
	c.notify("initialized", map[string]any{})
	uri := "file://" + filepath.Join(root, "a.txt")
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "plaintext", "version": 1, "text": "typed, not saved\n"}})
	ed := newFakeEditor(c)

	c.request(1, "toolhost/status", nil)
	st := ed.result(t)["result"].(map[string]any)["agentEndpoint"].(map[string]any)
	url, file := st["url"].(string), st["sessionFile"].(string)
	if _, shown := st["token"]; shown {
		t.Errorf("toolhost/status shows the agents' bearer token: %v", st)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("session file %s: %v, mode %v; want it there with mode 0600", file, err, fi.Mode())
	}
	info, err := discovery.Read(file)
	token := info.Token
	if err != nil || info.URL != url || token == "" || info.PID != os.Getpid() || len(info.Roots) != 1 {
		t.Fatalf("session file = %+v (%v), want the endpoint %s of this process over %s", info, err, url, root)
	}
	ctx := context.Background()

	// A wrong token is refused before any MCP is spoken.
	bad := sdk.NewClient(&sdk.Implementation{Name: "intruder"}, nil)
	if _, err := bad.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: tokenClient{"wrong"}}, MaxRetries: -1}, nil); err == nil {
		t.Fatal("a client with a wrong token connected")
	}

	// The editor's own path serves the tools of toolhost's MCP servers
	// only (none here), behind a token the session file does not hold.
	serversURL, editorToken := st["serversUrl"].(string), st["editorToken"].(string)
	if _, err := bad.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: serversURL, HTTPClient: &http.Client{Transport: tokenClient{token}}, MaxRetries: -1}, nil); err == nil {
		t.Fatal("the session file's token opened the editor's own path")
	}
	vs, err := sdk.NewClient(&sdk.Implementation{Name: "Visual Studio Code"}, nil).Connect(ctx, &sdk.StreamableClientTransport{Endpoint: serversURL, HTTPClient: &http.Client{Transport: tokenClient{editorToken}}}, nil)
	if err != nil {
		t.Fatalf("connecting with the editor's token: %v", err)
	}
	if list, err := vs.ListTools(ctx, nil); err != nil || len(list.Tools) != 0 {
		t.Errorf("the editor's path lists %v (%v), want no built-in tool", list, err)
	}
	_ = vs.Close()

	agent := sdk.NewClient(&sdk.Implementation{Name: "claude-code"}, nil)
	cs, err := agent.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: tokenClient{token}}}, nil)
	if err != nil {
		t.Fatalf("connecting with the token: %v", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "Read", Arguments: map[string]any{"file_path": filepath.Join(root, "a.txt")}})
	if err != nil || res.IsError || !strings.Contains(textOf(res), "typed, not saved") {
		t.Fatalf("Read through the endpoint = %v %q, want the unsaved buffer", err, textOf(res))
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "Write", Arguments: map[string]any{"file_path": filepath.Join(root, "b.txt"), "content": "from the agent\n"}})
	if err != nil || res.IsError {
		t.Fatalf("Write through the endpoint = %v %q", err, textOf(res))
	}
	ed.mu.Lock()
	prompts, edits := append([]string(nil), ed.prompts...), append([]map[string]any(nil), ed.edits...)
	ed.mu.Unlock()
	if len(prompts) != 1 || !strings.HasPrefix(prompts[0], "Claude Code wants to run Write: ") {
		t.Errorf("prompts in the editor = %q, want one naming Claude Code", prompts)
	}
	if len(edits) != 1 {
		t.Errorf("workspace/applyEdit requests = %d, want 1", len(edits))
	} else if label, _ := edits[0]["label"].(string); !strings.HasPrefix(label, "Claude Code: ") {
		t.Errorf("the edit's label %q does not name Claude Code", label)
	}

	// toolhost mcp --attach: found by a folder inside the workspace.
	sub := filepath.Join(root, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	found, err := discovery.Find(sub)
	if err != nil || found.Path != file {
		t.Fatalf("Find(%s) = %v %v, want %s", sub, found.Path, err, file)
	}
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	attachCtx, stopAttach := context.WithCancel(ctx)
	attached := make(chan error, 1)
	go func() { attached <- mcpserver.Attach(attachCtx, sr, sw, mcpserver.AttachOptions{Session: found.Info}) }()
	stdio := sdk.NewClient(&sdk.Implementation{Name: "codecompanion"}, nil)
	ss, err := stdio.Connect(ctx, &sdk.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatalf("connecting through --attach: %v", err)
	}
	res, err = ss.CallTool(ctx, &sdk.CallToolParams{Name: "Read", Arguments: map[string]any{"file_path": filepath.Join(root, "a.txt")}})
	if err != nil || !strings.Contains(textOf(res), "typed, not saved") {
		t.Fatalf("Read through --attach = %v %q, want the unsaved buffer", err, textOf(res))
	}
	// Cancellation passes through: the call ends in the session.
	callCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := ss.CallTool(callCtx, &sdk.CallToolParams{Name: "Bash", Arguments: map[string]any{"command": "sleep 60"}})
		done <- err
	}()
	ed.waitFor(t, "the Bash call started", func() bool {
		for _, p := range ed.progress {
			if strings.HasPrefix(p, "begin CodeCompanion: Bash") || strings.HasPrefix(p, "begin codecompanion: Bash") {
				return true
			}
		}
		return false
	})
	cancel()
	if err, _ := await(c, "the cancelled call to return", done); !errors.Is(err, context.Canceled) {
		t.Errorf("the cancelled call returned %v", err)
	}
	ed.waitFor(t, "the Bash call was cancelled in the session", func() bool {
		for _, p := range ed.progress {
			if strings.HasPrefix(p, "end cancelled") {
				return true
			}
		}
		return false
	})
	if !strings.Contains(strings.Join(ed.prompts, "\n"), "CodeCompanion wants to run Bash") {
		t.Errorf("prompts = %q, want one naming CodeCompanion", ed.prompts)
	}
	_ = ss.Close()
	stopAttach()
	await(c, "toolhost mcp --attach to end", attached)

	c.request(2, "shutdown", nil)
	ed.result(t)
	c.notify("exit", nil)
	if err := c.awaitServed(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("the session file is still there after exit: %v", err)
	}
}

// TestEditorMCPServersPath: the editor's own path serves the tools of
// toolhost's MCP servers only. The editor confirmed each call in its own UI
// (VS Code does for MCP tools), so toolhost's prompt for it is answered by
// that confirmation and the editor gets no dialog; a deny rule still denies.
func TestEditorMCPServersPath(t *testing.T) {
	script := testnpm.EverythingScript(t)
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	root := t.TempDir()
	c := startServer(t, Options{AgentEndpoint: true, OnSession: func(*session.Session) {}})
	c.request(0, "initialize", map[string]any{"rootPath": root, "capabilities": map[string]any{
		"experimental": map[string]any{"toolhost": map[string]any{"requestPermission": true}},
	}, "initializationOptions": map[string]any{
		"mcpServers":  map[string]any{"everything": map[string]any{"command": "node", "args": []string{script, "stdio"}}},
		"permissions": map[string]any{"deny": []string{"mcp__everything__get-env"}},
	}})
	if m := c.next(); m["error"] != nil {
		t.Fatalf("initialize: %v", m["error"])
	}
	c.notify("initialized", map[string]any{})
	ed := newFakeEditor(c)
	c.request(1, "toolhost/status", nil)
	st := ed.result(t)["result"].(map[string]any)["agentEndpoint"].(map[string]any)

	ctx := context.Background()
	vs, err := sdk.NewClient(&sdk.Implementation{Name: "Visual Studio Code"}, nil).Connect(ctx,
		&sdk.StreamableClientTransport{Endpoint: st["serversUrl"].(string), HTTPClient: &http.Client{Transport: tokenClient{st["editorToken"].(string)}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer vs.Close()
	// The server starts in the background; the editor is told when its
	// tools are in (the endpoint has them by then).
	ed.waitFor(t, "the MCP server's tools", func() bool { return slices.Contains(ed.tools, "mcp__everything__echo") })
	list, err := vs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	if !slices.Contains(names, "mcp__everything__echo") {
		t.Fatalf("the editor's MCP-servers path lists %v", names)
	}
	for _, n := range names {
		if !strings.HasPrefix(n, "mcp__") {
			t.Errorf("the editor's MCP-servers path serves %s", n)
		}
	}
	res, err := vs.CallTool(ctx, &sdk.CallToolParams{Name: "mcp__everything__echo", Arguments: map[string]any{"message": "through the editor path"}})
	if err != nil || res.IsError || !strings.Contains(textOf(res), "through the editor path") {
		t.Fatalf("echo = %v %q", err, textOf(res))
	}
	res, err = vs.CallTool(ctx, &sdk.CallToolParams{Name: "mcp__everything__get-env", Arguments: map[string]any{}})
	if err != nil || !res.IsError || !strings.Contains(textOf(res), "denied by the rule") {
		t.Fatalf("a denied tool = %v %q, want the rule's refusal", err, textOf(res))
	}
	ed.mu.Lock()
	defer ed.mu.Unlock()
	if len(ed.prompts) != 0 {
		t.Errorf("the editor was asked %q; its own confirmation is the one approval", ed.prompts)
	}
}

// TestAgentEndpointOff: server.agentEndpoint false serves no endpoint and
// writes no session file.
func TestAgentEndpointOff(t *testing.T) {
	runtime := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	c := startServer(t, Options{AgentEndpoint: true, OnSession: func(*session.Session) {}})
	c.request(0, "initialize", map[string]any{"rootPath": t.TempDir(), "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"server": map[string]any{"agentEndpoint": false}}})
	if m := c.next(); m["error"] != nil {
		t.Fatalf("initialize: %v", m["error"])
	}
	c.request(1, "toolhost/status", nil)
	st := c.nextNotLog()["result"].(map[string]any)
	if ep, ok := st["agentEndpoint"]; ok {
		t.Errorf("agentEndpoint = %v with the setting off", ep)
	}
	if files, _ := filepath.Glob(filepath.Join(runtime, "toolhost", "*")); len(files) > 0 {
		t.Errorf("session files with the endpoint off: %v", files)
	}
}
