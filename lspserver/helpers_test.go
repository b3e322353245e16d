package lspserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/toolhost/toolhost/internal/script"
	"github.com/toolhost/toolhost/session"
	"github.com/toolhost/toolhost/tools"
)

// testClient drives Serve over in-memory pipes with raw framed messages.
type testClient struct {
	t      *testing.T
	w      *io.PipeWriter
	msgs   chan map[string]any
	served chan error
}

// startServer runs Serve with test tools registered and returns a client.
func startServer(t *testing.T, opts Options) *testClient {
	t.Helper()
	return startServerOut(t, opts, nil)
}

// startServerOut is startServer with the server's output passed through
// wrap (when set) on its way to the client.
func startServerOut(t *testing.T, opts Options, wrap func(io.Writer) io.Writer) *testClient {
	t.Helper()
	if opts.OnSession == nil {
		opts.OnSession = func(s *session.Session) { registerTestTools(s.Registry) }
	}
	clientR, clientW := io.Pipe()
	serverR, serverW := io.Pipe()
	c := &testClient{t: t, w: clientW, msgs: make(chan map[string]any, 1024), served: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	var out io.Writer = serverW
	if wrap != nil {
		out = wrap(serverW)
	}
	go func() {
		err := Serve(ctx, clientR, out, opts)
		_ = serverW.Close()
		c.served <- err
	}()
	go func() {
		defer close(c.msgs)
		br := bufio.NewReader(serverR)
		for {
			body, err := script.ReadFrame(br)
			if err != nil {
				return
			}
			var m map[string]any
			if err := json.Unmarshal(body, &m); err != nil {
				t.Errorf("the server sent invalid JSON: %s", body)
				return
			}
			c.msgs <- m
		}
	}()
	t.Cleanup(func() {
		_ = clientW.Close()
		cancel()
		for range c.msgs {
		}
	})
	return c
}

// raw writes bytes as they are.
func (c *testClient) raw(s string) {
	c.t.Helper()
	if _, err := io.WriteString(c.w, s); err != nil {
		c.t.Fatalf("writing to the server: %v", err)
	}
}

// send frames a message.
func (c *testClient) send(msg any) {
	c.t.Helper()
	body, err := json.Marshal(msg)
	if err != nil {
		c.t.Fatal(err)
	}
	if err := script.WriteFrame(c.w, body); err != nil {
		c.t.Fatalf("writing to the server: %v", err)
	}
}

func (c *testClient) request(id any, method string, params any) {
	c.t.Helper()
	m := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		m["params"] = params
	}
	c.send(m)
}

func (c *testClient) notify(method string, params any) {
	c.t.Helper()
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		m["params"] = params
	}
	c.send(m)
}

// next returns the server's next message.
func (c *testClient) next() map[string]any {
	c.t.Helper()
	m, ok := <-c.msgs
	if !ok {
		c.t.Fatal("the server closed its output")
	}
	return m
}

// nextNotLog returns the server's next message that is not a log message.
func (c *testClient) nextNotLog() map[string]any {
	c.t.Helper()
	for {
		if m := c.next(); m["method"] != "window/logMessage" {
			return m
		}
	}
}

// initialize sends initialize with capabilities and waits for the result.
func (c *testClient) initialize(root string, caps map[string]any) map[string]any {
	c.t.Helper()
	if caps == nil {
		caps = map[string]any{}
	}
	c.request(0, "initialize", map[string]any{"rootPath": root, "capabilities": caps})
	m := c.next()
	if m["error"] != nil {
		c.t.Fatalf("initialize failed: %v", m["error"])
	}
	c.notify("initialized", map[string]any{})
	return m
}

// errorCode returns the code and message of an error response.
func errorCode(t *testing.T, m map[string]any) (int, string) {
	t.Helper()
	e, ok := m["error"].(map[string]any)
	if !ok {
		t.Fatalf("want an error response, got %v", m)
	}
	return int(e["code"].(float64)), e["message"].(string)
}

// resultText returns the joined text of a callTool result.
func resultText(t *testing.T, m map[string]any) string {
	t.Helper()
	res, ok := m["result"].(map[string]any)
	if !ok {
		t.Fatalf("want a result, got %v", m)
	}
	var s string
	for _, c := range res["content"].([]any) {
		s += c.(map[string]any)["text"].(string)
	}
	return s
}

// testTool is a tool whose behaviour a test supplies.
type testTool struct {
	name string
	side tools.SideEffect
	run  func(ctx context.Context, call *tools.Call) (*tools.Result, error)
}

func (t *testTool) Name() string                 { return t.name }
func (t *testTool) Description() string          { return t.name + " is a test tool.\nIt exists only in tests." }
func (t *testTool) InputSchema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (t *testTool) SideEffect() tools.SideEffect { return t.side }
func (t *testTool) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	return t.run(ctx, call)
}

// blockRelease ends the Block tool's calls; tests send to it.
var blockRelease = make(chan string)

// blockStarted receives one value when a Block call starts.
var blockStarted = make(chan struct{}, 16)

// registerTestTools adds the tools the protocol tests use:
// Echo returns input.text; Block waits for blockRelease or cancellation;
// Ask requests permission and reports the decision; Question asks input.q.
func registerTestTools(reg *tools.Registry) {
	reg.Register("test",
		&testTool{name: "Echo", side: tools.SideEffectNone, run: func(_ context.Context, call *tools.Call) (*tools.Result, error) {
			var in struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(call.Input, &in); err != nil {
				return tools.ErrorResult("input: %v", err), nil
			}
			return tools.TextResult(in.Text), nil
		}},
		&testTool{name: "Block", side: tools.SideEffectNone, run: func(ctx context.Context, call *tools.Call) (*tools.Result, error) {
			blockStarted <- struct{}{}
			select {
			case s := <-blockRelease:
				return tools.TextResult(s), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}},
		&testTool{name: "Ask", side: tools.SideEffectNetwork, run: func(ctx context.Context, call *tools.Call) (*tools.Result, error) {
			res, err := call.Host.RequestPermission(ctx, tools.PermissionRequest{
				CallID: call.ID, ToolName: "Ask", Input: call.Input, Title: "Run the test command?",
				Risk: tools.RiskHigh, Preview: &tools.Preview{Kind: "command", Text: "echo hi"},
			})
			if errors.Is(err, tools.ErrCannotAsk) {
				return tools.ErrorResult("cannot ask: %v", err), nil
			}
			if err != nil {
				return nil, err
			}
			return tools.TextResult(fmt.Sprintf("decision=%s message=%s", res.Decision, res.Message)), nil
		}},
	)
}
