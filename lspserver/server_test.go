package lspserver

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/session"
	"github.com/toolhost/toolhost/tools"
)

func TestFramingFaultsAreAnsweredAndReadingGoesOn(t *testing.T) {
	ping := `{"jsonrpc":"2.0","id":7,"method":"toolhost/status"}`
	frame := func(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }
	tests := []struct {
		name string
		// input is written before a valid status request with id 7.
		input string
		// wantCodes are the codes of the error responses sent before the
		// reply to id 7 (none for input that is fine).
		wantCodes []int
		// wantText is part of the first error's message.
		wantText string
	}{
		{name: "lower-case header", input: "content-length: 2\r\n\r\n{}", wantCodes: []int{-32600}, wantText: `"jsonrpc"`},
		{name: "mixed-case header and content type", input: "CONTENT-LENGTH: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}", wantCodes: []int{-32600}},
		{name: "body not JSON", input: frame(`{"jsonrpc":"2.0","id":3,"method":`), wantCodes: []int{-32700}, wantText: "not valid JSON"},
		{name: "JSON but not a message", input: frame(`[1,2]`), wantCodes: []int{-32600}, wantText: "batches"},
		{name: "data after the message", input: frame(`{"jsonrpc":"2.0","method":"$/noop"} {}`), wantCodes: []int{-32700}, wantText: "not valid JSON"},
		{name: "id that is not an integer", input: frame(`{"jsonrpc":"2.0","id":1.5,"method":"x"}`), wantCodes: []int{-32600}, wantText: `"id"`},
		{name: "method not a string", input: frame(`{"jsonrpc":"2.0","id":4,"method":5}`), wantCodes: []int{-32600}},
		{name: "id of a wrong type", input: frame(`{"jsonrpc":"2.0","id":{"a":1},"method":"x"}`), wantCodes: []int{-32600}, wantText: `"id"`},
		{name: "missing Content-Length", input: "Content-Type: x\r\n\r\n", wantCodes: []int{-32700}, wantText: "no Content-Length"},
		{name: "garbage line before a header", input: "hello there\r\n" + frame(`{"jsonrpc":"2.0","method":"initialized"}`), wantCodes: []int{-32700}, wantText: "hello there"},
		{name: "body without newline runs into the next header", input: `{"oops":1}` + frame(`{"jsonrpc":"2.0","method":"$/noop"}`), wantCodes: []int{-32700}, wantText: "oops"},
		{name: "header line cut short", input: "Content-Len", wantCodes: []int{-32700}, wantText: "Content-Len"},
		{name: "header line cut short after a header", input: "Content-Type: x\r\nContent-Le", wantCodes: []int{-32700}, wantText: "Content-Le"},
		{name: "negative Content-Length", input: "Content-Length: -5\r\n\r\n", wantCodes: []int{-32700}, wantText: "invalid Content-Length"},
		{name: "stray blank lines are harmless", input: "\r\n\r\n"},
		{name: "a response from the client is not answered", input: frame(`{"jsonrpc":"2.0","id":99,"result":null}`)},
		{name: "a malformed response is not answered", input: frame(`{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startServer(t, Options{})
			c.initialize(t.TempDir(), nil)
			c.raw(tt.input)
			c.raw(frame(ping))
			for i, want := range tt.wantCodes {
				m := c.next()
				code, msg := errorCode(t, m)
				if code != want {
					t.Fatalf("error %d: code %d (%s), want %d", i, code, msg, want)
				}
				if i == 0 && tt.wantText != "" && !strings.Contains(msg, tt.wantText) {
					t.Errorf("message %q does not mention %q", msg, tt.wantText)
				}
			}
			m := c.next()
			if m["id"] != float64(7) || m["result"] == nil {
				t.Fatalf("want the reply to the status request, got %v", m)
			}
		})
	}
}

func TestOversizedMessageIsRefusedAndReadingGoesOn(t *testing.T) {
	tests := []struct {
		name  string
		limit int64
		input string
	}{
		// A length far over the cap whose body is short: the discard stops
		// at the next header instead of waiting for 2 GiB.
		{name: "lying 2 GiB length", input: "Content-Length: 2147483648\r\n\r\n{\"short\":1}"},
		// An honest oversized body is drained fully, even when a string in
		// it looks like a header.
		{name: "honest body over a small cap", limit: 200, input: func() string {
			body := `{"jsonrpc":"2.0","method":"x","params":{"text":"` + strings.Repeat("Content-Length: 5 ", 40) + `"}}`
			return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startServer(t, Options{MaxMessageBytes: tt.limit})
			c.initialize(t.TempDir(), nil)
			c.raw(tt.input)
			c.request(8, "toolhost/status", nil)
			code, msg := errorCode(t, c.next())
			if code != -32600 || !strings.Contains(msg, "server.maxMessageBytes") {
				t.Fatalf("got %d %q, want -32600 naming server.maxMessageBytes", code, msg)
			}
			if m := c.next(); m["id"] != float64(8) || m["result"] == nil {
				t.Fatalf("want the status reply, got %v", m)
			}
		})
	}
}

func TestLifecycleAndMethodErrors(t *testing.T) {
	c := startServer(t, Options{})
	c.request(1, "toolhost/listTools", nil)
	if code, _ := errorCode(t, c.next()); code != -32002 {
		t.Fatalf("before initialize: code %d, want -32002", code)
	}
	c.initialize(t.TempDir(), nil)
	steps := []struct {
		method   string
		params   any
		wantCode int
		wantText string
	}{
		{"initialize", map[string]any{}, -32600, "already initialized"},
		{"textDocument/hover", map[string]any{}, -32601, "textDocument/hover"},
		{"toolhost/callTool", map[string]any{"input": map[string]any{}}, -32602, `"name"`},
		{"toolhost/callTool", map[string]any{"name": 5}, -32602, `"name"`},
		{"toolhost/callTool", []any{1}, -32602, "object"},
		{"toolhost/callTools", map[string]any{"calls": []any{map[string]any{"name": "Echo"}, map[string]any{}}}, -32602, `calls[1].name`},
		{"toolhost/listTools", map[string]any{"format": "xml"}, -32602, `"format"`},
		{"toolhost/setToolsEnabled", map[string]any{"names": []string{"Nope"}, "enabled": true}, -32602, "Nope"},
		{"toolhost/setToolsEnabled", map[string]any{"names": []string{"Echo"}}, -32602, `"enabled"`},
	}
	for i, st := range steps {
		c.request(100+i, st.method, st.params)
		code, msg := errorCode(t, c.next())
		if code != st.wantCode || !strings.Contains(msg, st.wantText) {
			t.Errorf("%s %v: got %d %q, want %d mentioning %s", st.method, st.params, code, msg, st.wantCode, st.wantText)
		}
	}
	c.notify("no/such/notification", nil)
	c.request(2, "shutdown", nil)
	if m := c.next(); m["id"] != float64(2) || m["error"] != nil {
		t.Fatalf("shutdown: %v", m)
	}
	c.request(3, "toolhost/status", nil)
	if code, _ := errorCode(t, c.next()); code != -32600 {
		t.Fatalf("after shutdown: code %d, want -32600", code)
	}
	c.notify("exit", nil)
	if err := c.awaitServed(); err != nil {
		t.Fatalf("Serve after shutdown and exit: %v, want nil", err)
	}
}

func TestExitWithoutShutdownIsAnError(t *testing.T) {
	c := startServer(t, Options{})
	c.initialize(t.TempDir(), nil)
	c.notify("exit", nil)
	if err := c.awaitServed(); err == nil {
		t.Fatal("Serve returned nil after exit without shutdown")
	}
}

func TestCancelRequest(t *testing.T) {
	for _, id := range []any{41, "call-41"} {
		t.Run(fmt.Sprintf("%T id", id), func(t *testing.T) {
			c := startServer(t, Options{})
			c.initialize(t.TempDir(), nil)
			c.request(id, "toolhost/callTool", map[string]any{"name": "Block", "input": map[string]any{}})
			c.awaitBlockStarted()
			c.notify("$/cancelRequest", map[string]any{"id": id})
			m := c.next()
			if code, _ := errorCode(t, m); code != -32800 {
				t.Fatalf("code %d, want -32800", code)
			}
			if fmt.Sprint(m["id"]) != fmt.Sprint(id) {
				t.Fatalf("reply id %v, want %v", m["id"], id)
			}
		})
	}
}

func TestRequestsRunConcurrently(t *testing.T) {
	c := startServer(t, Options{})
	c.initialize(t.TempDir(), nil)
	c.request(1, "toolhost/callTool", map[string]any{"name": "Block", "input": map[string]any{}})
	c.awaitBlockStarted()
	// The Block call holds id 1 until released; the Echo sent after it must
	// be answered first.
	c.request(2, "toolhost/callTool", map[string]any{"name": "Echo", "input": map[string]any{"text": "second"}})
	m := c.next()
	if m["id"] != float64(2) || resultText(t, m) != "second" {
		t.Fatalf("first reply %v, want the Echo (id 2)", m)
	}
	c.releaseBlock("first")
	m = c.next()
	if m["id"] != float64(1) || resultText(t, m) != "first" {
		t.Fatalf("second reply %v, want the Block (id 1)", m)
	}
}

func TestProgressCancelEndsTheCall(t *testing.T) {
	c := startServer(t, Options{})
	c.initialize(t.TempDir(), map[string]any{"window": map[string]any{"workDoneProgress": true}})
	c.request(1, "toolhost/callTool", map[string]any{"name": "Block", "input": map[string]any{}})
	create := c.next()
	if create["method"] != "window/workDoneProgress/create" {
		t.Fatalf("want a progress create, got %v", create)
	}
	token := create["params"].(map[string]any)["token"]
	c.send(map[string]any{"jsonrpc": "2.0", "id": create["id"], "result": nil})
	begin := c.next()
	if begin["method"] != "$/progress" || begin["params"].(map[string]any)["value"].(map[string]any)["kind"] != "begin" {
		t.Fatalf("want progress begin, got %v", begin)
	}
	c.awaitBlockStarted()
	c.notify("window/workDoneProgress/cancel", map[string]any{"token": token})
	var gotEnd, gotReply bool
	for !(gotEnd && gotReply) {
		m := c.next()
		switch {
		case m["method"] == "$/progress":
			gotEnd = m["params"].(map[string]any)["value"].(map[string]any)["kind"] == "end"
		case m["id"] == float64(1):
			// Cancelled from the editor, the call ends with a result the
			// model can read, not a protocol error.
			if text := resultText(t, m); !strings.HasPrefix(text, "Error: interrupted") {
				t.Fatalf("cancelled call: %q, want an interrupted result", text)
			}
			gotReply = true
		default:
			t.Fatalf("unexpected %v", m)
		}
	}
}

// TestProgressReportKeepsLineBreaks: a report is the last lines of a
// command's output; its line breaks arrive as line breaks (an editor shows
// them, or its last line), while a terminal escape is still written out.
func TestProgressReportKeepsLineBreaks(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"lines", "step 1\nstep 2\n", "step 1\nstep 2\n"},
		{"tab kept", "a\tb", "a\tb"},
		{"escape written out", "red\x1b[31m\nnext", `red\x1b[31m` + "\nnext"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := startServer(t, Options{})
			c.initialize(t.TempDir(), map[string]any{"window": map[string]any{"workDoneProgress": true}})
			c.request(1, "toolhost/callTool", map[string]any{"name": "Echo", "input": map[string]any{"text": tc.text}})
			create := c.next()
			if create["method"] != "window/workDoneProgress/create" {
				t.Fatalf("want a progress create, got %v", create)
			}
			c.send(map[string]any{"jsonrpc": "2.0", "id": create["id"], "result": nil})
			var report string
			for {
				m := c.next()
				if m["id"] == float64(1) {
					break
				}
				v := m["params"].(map[string]any)["value"].(map[string]any)
				if v["kind"] == "report" {
					report = v["message"].(string)
				}
			}
			if report != tc.want {
				t.Fatalf("report %q, want %q", report, tc.want)
			}
		})
	}
}

func TestServerRequestsEndWhenTheClientGoesAway(t *testing.T) {
	c := startServer(t, Options{})
	c.initialize(t.TempDir(), map[string]any{"experimental": map[string]any{"toolhost": map[string]any{"requestPermission": true}}})
	c.request(1, "toolhost/callTool", map[string]any{"name": "Ask", "input": map[string]any{}})
	if m := c.next(); m["method"] != "toolhost/requestPermission" {
		t.Fatalf("want a permission request, got %v", m)
	}
	// The editor dies without answering: Serve must still return.
	_ = c.w.Close()
	if err := c.awaitServed(); err == nil {
		t.Fatal("Serve returned nil for a client that vanished without shutdown")
	}
}

func TestReportLimiterKeepsTheLastMessage(t *testing.T) {
	var sent []string
	clock := &fakeClock{t: time.Unix(1000, 0)}
	l := newReportLimiter(reportInterval, func(s string) { sent = append(sent, s) }, clock.now, clock.afterFunc)
	l.Report("a")
	l.Report("b")
	l.Report("c")
	if got := strings.Join(sent, ","); got != "a" {
		t.Fatalf("within the interval sent %q, want only a", got)
	}
	clock.advance(reportInterval)
	l.Report("d")
	if got := strings.Join(sent, ","); got != "a,c" {
		t.Fatalf("after the interval sent %q, want a,c (c held and flushed)", got)
	}
	l.Stop()
	if got := strings.Join(sent, ","); got != "a,c,d" {
		t.Fatalf("after Stop sent %q, want a,c,d (the last one not lost)", got)
	}
	l.Report("e")
	if len(sent) != 3 {
		t.Fatalf("a report after Stop was sent: %v", sent)
	}
}

func TestInitializeParamsErrorNamesTheField(t *testing.T) {
	c := startServer(t, Options{})
	c.request(1, "initialize", map[string]any{"capabilities": map[string]any{}, "processId": "nope"})
	code, msg := errorCode(t, c.next())
	if code != -32602 || !strings.Contains(msg, "processId") {
		t.Fatalf("got %d %q, want -32602 naming processId", code, msg)
	}
}

// fakeClock drives reportLimiter without real time.
type fakeClock struct {
	t      time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	at      time.Time
	f       func()
	stopped bool
}

func (t *fakeTimer) Stop() bool { t.stopped = true; return true }

func (c *fakeClock) now() time.Time { return c.t }

func (c *fakeClock) afterFunc(d time.Duration, f func()) stopper {
	tm := &fakeTimer{at: c.t.Add(d), f: f}
	c.timers = append(c.timers, tm)
	return tm
}

// advance moves the clock and runs the timers that came due.
func (c *fakeClock) advance(d time.Duration) {
	c.t = c.t.Add(d)
	due := c.timers
	c.timers = nil
	for _, tm := range due {
		if tm.stopped {
			continue
		}
		if !tm.at.After(c.t) {
			tm.f()
		} else {
			c.timers = append(c.timers, tm)
		}
	}
}

func TestLogsReachTheClientByTraceLevel(t *testing.T) {
	c := startServer(t, Options{OnSession: func(s *session.Session) {
		log := s.Log
		s.Registry.Register("test", &testTool{name: "Log", side: tools.SideEffectNone,
			run: func(context.Context, *tools.Call) (*tools.Result, error) {
				log.Info("info from a tool", "n", 1)
				log.Warn("warning from a tool")
				return tools.TextResult("logged"), nil
			}})
	}})
	c.initialize(t.TempDir(), nil)
	steps := []struct {
		trace string
		// want are the logMessage texts (type: text) expected before the reply.
		want []string
	}{
		{trace: "off", want: []string{"2: warning from a tool"}},
		{trace: "messages", want: []string{"3: info from a tool n=1", "2: warning from a tool"}},
		{trace: "verbose", want: []string{"3: info from a tool n=1", "2: warning from a tool"}},
	}
	for i, st := range steps {
		c.notify("$/setTrace", map[string]any{"value": st.trace})
		c.request(10+i, "toolhost/callTool", map[string]any{"name": "Log", "input": map[string]any{}})
		var got []string
		for {
			m := c.next()
			if m["method"] == "window/logMessage" {
				p := m["params"].(map[string]any)
				got = append(got, fmt.Sprintf("%v: %v", p["type"], p["message"]))
				continue
			}
			if m["id"] != float64(10+i) {
				t.Fatalf("unexpected %v", m)
			}
			break
		}
		if strings.Join(got, "|") != strings.Join(st.want, "|") {
			t.Errorf("trace %s: logMessages %q, want %q", st.trace, got, st.want)
		}
	}
}

func TestAPanickingToolDoesNotStopTheServer(t *testing.T) {
	c := startServer(t, Options{OnSession: func(s *session.Session) {
		registerTestTools(s.Registry)
		s.Registry.Register("test", &testTool{name: "Panic", side: tools.SideEffectNone,
			run: func(context.Context, *tools.Call) (*tools.Result, error) { panic("broken tool") }})
	}})
	c.initialize(t.TempDir(), nil)
	c.request(1, "toolhost/callTool", map[string]any{"name": "Panic", "input": map[string]any{}})
	m := c.nextNotLog()
	if m["id"] != float64(1) {
		t.Fatalf("got %v", m)
	}
	// The pipeline may turn the panic into a tool error itself; either way
	// the request is answered and the next one is served.
	if m["error"] == nil && !strings.Contains(resultText(t, m), "Error:") {
		t.Fatalf("a panicking tool succeeded: %v", m)
	}
	c.request(2, "toolhost/callTool", map[string]any{"name": "Echo", "input": map[string]any{"text": "still here"}})
	if m := c.next(); resultText(t, m) != "still here" {
		t.Fatalf("after the panic: %v", m)
	}
}

func TestARequestThatPanicsIsAnsweredAndServingGoesOn(t *testing.T) {
	// A session without a pipeline makes callTool fail inside the server.
	c := startServer(t, Options{OnSession: func(s *session.Session) { s.Pipeline = nil }})
	c.initialize(t.TempDir(), nil)
	c.request(1, "toolhost/callTool", map[string]any{"name": "Read", "input": map[string]any{}})
	m := c.nextNotLog()
	if code, msg := errorCode(t, m); code != -32603 || !strings.Contains(msg, "toolhost/callTool") {
		t.Fatalf("got %d %q, want -32603 naming the method", code, msg)
	}
	c.request(2, "toolhost/listTools", nil)
	m = c.nextNotLog()
	if m["id"] != float64(2) || m["result"] == nil {
		t.Fatalf("after the panic: %v", m)
	}
}
