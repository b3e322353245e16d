package lspserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/script"
	"github.com/toolhost/toolhost/session"
	"github.com/toolhost/toolhost/tools"
)

// serverWait bounds how long a test waits on the server in all: a server
// that stops answering (or reading) fails the test with what it waited for,
// instead of hanging until go test's own timeout ends the whole run with no
// word about which wait it was. Generous: the machine may be busy.
const serverWait = 2 * time.Minute

// cleanupWait bounds how long a test's cleanup waits for the server to end
// once its input is closed and its context cancelled.
const cleanupWait = 30 * time.Second

// waitDeadline is the context every wait of a test selects on: it ends
// serverWait from now, or, when go test's -timeout comes sooner, a little
// before it, so that the test fails with its own message first.
func waitDeadline(t testing.TB) (context.Context, context.CancelFunc) {
	end := time.Now().Add(serverWait)
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if td, ok := d.Deadline(); ok && td.Add(-10*time.Second).Before(end) {
			end = td.Add(-10 * time.Second)
		}
	}
	return context.WithDeadlineCause(t.Context(), end, fmt.Errorf("the test's wait limit (%s from its start) passed", time.Until(end).Round(time.Second)))
}

// testClient drives Serve over in-memory pipes with raw framed messages.
// Every wait on the server (a message, the end of Serve, a write the
// server must read) ends at the test's deadline (ctx) with a failure that
// says what was awaited.
type testClient struct {
	t      testing.TB
	ctx    context.Context
	w      *io.PipeWriter
	msgs   chan map[string]any
	served chan error
	// last is the last message received, for the message of a failed wait.
	last map[string]any
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
	waitCtx, stopWaiting := waitDeadline(t)
	c := &testClient{t: t, ctx: waitCtx, w: clientW, msgs: make(chan map[string]any, 1024), served: make(chan error, 1)}
	// A write the server does not read ends at the deadline too.
	stopClosing := context.AfterFunc(waitCtx, func() { _ = clientR.CloseWithError(errServerNotReading) })
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
		stopClosing()
		stopWaiting()
		_ = clientW.Close()
		cancel()
		drained := make(chan struct{})
		go func() {
			for range c.msgs {
			}
			close(drained)
		}()
		select {
		case <-drained:
		case <-time.After(cleanupWait):
			t.Errorf("the server did not end within %s of the test's end (its input closed, its context cancelled)", cleanupWait)
		}
	})
	return c
}

// errServerNotReading ends a write the server did not read by the test's
// deadline.
var errServerNotReading = errors.New("the server read nothing more before the test's deadline")

// await receives from ch, or fails the test, naming what, when the test's
// deadline passes first. ok is false when ch was closed.
func await[T any](c *testClient, what string, ch <-chan T) (v T, ok bool) {
	c.t.Helper()
	select {
	case v, ok = <-ch:
		return v, ok
	case <-c.ctx.Done():
	}
	last := "nothing yet"
	if c.last != nil {
		raw, _ := json.Marshal(c.last)
		last = string(raw)
	}
	c.t.Fatalf("gave up waiting for %s: %v (the last message from the server: %s)", what, context.Cause(c.ctx), last)
	return v, false
}

// awaitServed returns what Serve returned, waiting for it to end.
func (c *testClient) awaitServed() error {
	c.t.Helper()
	err, _ := await(c, "Serve to return", c.served)
	return err
}

// awaitBlockStarted waits until a Block call runs.
func (c *testClient) awaitBlockStarted() {
	c.t.Helper()
	await(c, "a Block call to start", blockStarted)
}

// releaseBlock ends a running Block call with text.
func (c *testClient) releaseBlock(text string) {
	c.t.Helper()
	select {
	case blockRelease <- text:
	case <-c.ctx.Done():
		c.t.Fatalf("gave up waiting for a Block call to take %q: %v", text, context.Cause(c.ctx))
	}
}

// raw writes bytes as they are.
func (c *testClient) raw(s string) {
	c.t.Helper()
	if _, err := io.WriteString(c.w, s); err != nil {
		c.t.Fatalf("writing %q to the server: %v", s, err)
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
		c.t.Fatalf("writing %s to the server: %v", body, err)
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
	return c.nextFor("the server's next message")
}

// nextFor returns the server's next message, awaited as what.
func (c *testClient) nextFor(what string) map[string]any {
	c.t.Helper()
	m, ok := await(c, what, c.msgs)
	if !ok {
		c.t.Fatalf("the server closed its output while the test waited for %s", what)
	}
	c.last = m
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
	m := c.nextFor("the reply to initialize")
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
// Echo reports input.text as progress and returns it; Block waits for blockRelease or cancellation;
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
			call.Progress.Report(in.Text)
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
