package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/toolhost/toolhost/internal/rpcfault"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/engine"
)

// TestNegotiatedVersion follows the SDK's rule: the requested version when
// the server speaks it, else the newest it speaks.
func TestNegotiatedVersion(t *testing.T) {
	newest := negotiatedVersion("")
	if newest < "2025-11-25" || newest >= "2026-07-28" {
		t.Errorf("newest version spoken = %q", newest)
	}
	for requested, want := range map[string]string{"2025-03-26": "2025-03-26", "2025-06-18": "2025-06-18", "1999-01-01": newest, "2026-07-28": newest} {
		if got := negotiatedVersion(requested); got != want {
			t.Errorf("negotiatedVersion(%q) = %q, want %q", requested, got, want)
		}
	}
}

// newTestStdio is a connected transport over input whose answers go to
// out, which does not wait at the end of the input (nothing answers here);
// tune, when set, adjusts it before it connects.
func newTestStdio(t testing.TB, input io.Reader, out io.Writer, max int, tune func(*stdio)) *stdio {
	s := newStdio(input, out, max, slog.New(slog.DiscardHandler))
	s.drain = 0
	if tune != nil {
		tune(s)
	}
	if _, err := s.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.stop)
	return s
}

// readAll reads messages until the input ends.
func readAll(s *stdio) ([]jsonrpc.Message, error) {
	var msgs []jsonrpc.Message
	for {
		msg, err := s.Read(context.Background())
		if err == io.EOF {
			return msgs, nil
		}
		if err != nil {
			return msgs, err
		}
		msgs = append(msgs, msg)
	}
}

// encodeAll is msgs as lines.
func encodeAll(t testing.TB, msgs []jsonrpc.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		data, err := rpcfault.Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	return b.String()
}

// TestStdioFollowsRequests: the transport notes each request it hands on,
// an answer written for it crosses it off, and a cancelled request (which
// MCP never answers) is forgotten, so the end of the input waits only for
// real answers.
func TestStdioFollowsRequests(t *testing.T) {
	input := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"two","method":"tools/call","params":{"name":"Bash"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"Read"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":9,"result":{}}`, // the client answering the server
	}, "\n")
	s := newTestStdio(t, strings.NewReader(input), io.Discard, 0, nil)
	if _, err := readAll(s); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	id := func(v any) jsonrpc.ID { i, _ := jsonrpc.MakeID(v); return i }
	for _, msg := range []jsonrpc.Message{
		&jsonrpc.Request{ID: id(float64(1)), Method: "roots/list"}, // a request of the server: answers nothing
		&jsonrpc.Request{Method: "notifications/progress", Params: json.RawMessage(`{"id":"two"}`)},
		&jsonrpc.Response{ID: id(float64(1)), Result: json.RawMessage(`{}`)},
		&jsonrpc.Response{ID: id("two"), Error: rpcfault.Errorf(-1, "x")},
	} {
		if err := s.Write(ctx, msg); err != nil {
			t.Fatal(err)
		}
	}
	if s.flow.Drain(ctx, 0) {
		t.Fatal("no request is left after two answers; want the third")
	}
	s.note(&jsonrpc.Request{Method: "notifications/cancelled", Params: json.RawMessage(`{"requestId":3}`)})
	if !s.flow.Drain(ctx, 0) {
		t.Fatal("a request is left after the cancellation")
	}
}

// TestStdioTakesGoodLinesWhole: however the input arrives (here a byte at
// a time), the SDK gets the good lines' messages whole and in order, a
// last line without a newline included, and nothing of the bad ones, which
// are answered.
func TestStdioTakesGoodLinesWhole(t *testing.T) {
	good := []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"Read","arguments":{"file_path":"/x"}}}`,
	}
	input := good[0] + "\n" +
		"garbage\n" +
		"\n" +
		`{"jsonrpc":"2.0","id":"long","method":"ping","params":{"pad":"` + strings.Repeat("x", 200) + `"}}` + "\n" +
		good[1] + "\r\n" +
		good[2] // no newline at the end
	var answers strings.Builder
	s := newTestStdio(t, iotest.OneByteReader(strings.NewReader(input)), &answers, 128, nil)
	msgs, err := readAll(s)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := encodeAll(t, msgs), strings.Join(good, "\n")+"\n"; got != want {
		t.Errorf("handed to the SDK:\n%s\nwant\n%s", got, want)
	}
	if n := strings.Count(answers.String(), "\n"); n != 2 || !strings.Contains(answers.String(), "-32700") || !strings.Contains(answers.String(), "longer than 128 bytes") {
		t.Errorf("answers to the bad lines:\n%s", answers.String())
	}
}

// TestStdioClassifiesLines: text that is not JSON, array or not, is a
// parse error; JSON that is not a JSON-RPC message, or a batch the
// protocol version does not have, an invalid request.
func TestStdioClassifiesLines(t *testing.T) {
	// Deeper than the SDK reads.
	deep := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}}`
	deepInBatch := `[{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":` + strings.Repeat("[", 998) + strings.Repeat("]", 998) + `}}]`
	old := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}` + "\n"
	for _, tt := range []struct {
		before, line string
		// want is the code of the answer; 0 when the line is handed on.
		want int64
	}{
		{old, deep, rpcfault.CodeInvalidRequest},
		{old, deepInBatch, rpcfault.CodeInvalidRequest},
		{"", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, 0},
		{"", `{"jsonrpc":"2.0","id":1,"method":`, rpcfault.CodeParseError},
		{old, `[{"jsonrpc":"2.0","id":1,"method":"ping"`, rpcfault.CodeParseError},
		{"", `nope`, rpcfault.CodeParseError},
		{"", `"just a string"`, rpcfault.CodeInvalidRequest},
		{"", `{"id":1}`, rpcfault.CodeInvalidRequest},
		{old, `[]`, rpcfault.CodeInvalidRequest},
		{old, `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":1,"method":"ping"}]`, rpcfault.CodeInvalidRequest},
		{old, `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"x"}]`, 0},
		{"", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, 0}, // no initialize yet: any version may come
		{strings.Replace(old, "2025-03-26", "2025-06-18", 1), `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, rpcfault.CodeInvalidRequest},
	} {
		var answers strings.Builder
		s := newTestStdio(t, strings.NewReader(tt.before+tt.line+"\n"), &answers, 0, nil)
		msgs, err := readAll(s)
		if err != nil {
			t.Fatal(err)
		}
		passed := len(msgs) > strings.Count(tt.before, "\n")
		var a struct {
			Error struct{ Code int64 } `json:"error"`
		}
		_ = json.Unmarshal([]byte(answers.String()), &a)
		if passed != (tt.want == 0) || a.Error.Code != tt.want {
			t.Errorf("%.100s: handed on %v, answered %q; want code %d", tt.line, passed, answers.String(), tt.want)
		}
	}
}

// TestOverCapLineIsNotKept: a line over the cap is skipped having cost
// about the cap in allocations, and the line after it still passes.
func TestOverCapLineIsNotKept(t *testing.T) {
	const max = 4 << 20
	good := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"
	input := `{"jsonrpc":"2.0","id":0,"method":"x","params":"` + strings.Repeat("x", 2*max) + "\"}\n" + good
	var answers strings.Builder
	s := newTestStdio(t, strings.NewReader(input), &answers, max, nil)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	msgs, err := readAll(s)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got := encodeAll(t, msgs); got != good {
		t.Errorf("handed on %q, want only the good line", got)
	}
	if !strings.Contains(answers.String(), "longer than") {
		t.Errorf("no answer to the long line: %q", answers.String())
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > max*3/2 {
		t.Errorf("allocated %d bytes to skip a line over a cap of %d", alloc, max)
	}
}

// structuredTool answers with text and structured output full of bytes a
// transport could mangle: an envelope's own error shape with code 0, HTML
// characters, line separators, escapes.
type structuredTool struct{}

var trickyStructured = map[string]any{
	"error": map[string]any{"code": 0, "message": "the tool's own error field"},
	"html":  "<script>&amp;</script>",
	"seps":  "line\u2028para\u2029tab\tquote\"backslash\\",
	"raw":   `"error":{"code":0,`,
}

const trickyText = `{"jsonrpc":"2.0","id":1,"error":{"code":0,"message":"x"}} <&> ` + "\u2028\n\x7f"

func (structuredTool) Name() string        { return "Tricky" }
func (structuredTool) Description() string { return "Answers with tricky bytes." }
func (structuredTool) InputSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{}}`)
}
func (structuredTool) SideEffect() tools.SideEffect { return tools.SideEffectNone }
func (structuredTool) Execute(context.Context, *tools.Call) (*tools.Result, error) {
	return &tools.Result{Content: []tools.Content{{Type: "text", Text: trickyText}}, Structured: trickyStructured}, nil
}

// TestStructuredOutputIsDeliveredByteForByte: a tool's structured output
// reaches the client over stdio exactly as the tool's result encodes it,
// however much of it looks like the envelope (`"error":{"code":0,`), and
// its text decodes to the tool's text.
func TestStructuredOutputIsDeliveredByteForByte(t *testing.T) {
	reg := tools.NewRegistry()
	reg.Register(tools.CategoryCore, structuredTool{})
	srv := New(reg, engine.NewPipeline(reg, nil), nil)
	t.Cleanup(srv.Close)
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		s := newStdio(serverIn, serverOut, 0, slog.New(slog.DiscardHandler))
		defer s.stop()
		served <- srv.Run(ctx, s)
	}()
	t.Cleanup(func() {
		cancel()
		_ = clientOut.Close()
		<-served
	})
	lines := bufio.NewReader(clientIn)
	send := func(msg string) {
		if _, err := io.WriteString(clientOut, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	// answer reads lines until the answer to id.
	answer := func(id int) []byte {
		for {
			line, err := lines.ReadBytes('\n')
			if err != nil {
				t.Fatal(err)
			}
			var m struct{ ID *int }
			if json.Unmarshal(line, &m) == nil && m.ID != nil && *m.ID == id {
				return line
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	answer(1)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"Tricky","arguments":{}}}`)
	line := answer(2)
	var got struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			StructuredContent json.RawMessage `json:"structuredContent"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &got); err != nil || got.Error != nil {
		t.Fatalf("answer %s: %v", line, err)
	}
	want, _ := json.Marshal(trickyStructured)
	if string(got.Result.StructuredContent) != string(want) {
		t.Errorf("structured output arrived as\n%s\nwant\n%s", got.Result.StructuredContent, want)
	}
	if len(got.Result.Content) != 1 || got.Result.Content[0].Text != trickyText {
		t.Errorf("text arrived as %q, want %q", got.Result.Content, trickyText)
	}
}

// heldWriter is a client that does not read: every write waits until
// release is closed. entered is sent to (when it has room) as a write
// starts waiting.
type heldWriter struct{ release, entered chan struct{} }

func (h heldWriter) Write(p []byte) (int, error) {
	select {
	case h.entered <- struct{}{}:
	default:
	}
	<-h.release
	return len(p), nil
}

// TestStdioHoldsInputWhileAnswersAreNotRead: with the client reading none
// of its answers, the transport hands on requests only up to its in-flight
// cap and then reads no more input (the client's writes meet
// backpressure); once the answers are read, every request passes and is
// answered.
func TestStdioHoldsInputWhileAnswersAreNotRead(t *testing.T) {
	const requests, limit = 200, 8
	var input strings.Builder
	for i := 1; i <= requests; i++ {
		fmt.Fprintf(&input, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"Read"}}`+"\n", i)
	}
	out := heldWriter{release: make(chan struct{}), entered: make(chan struct{}, 1)}
	// The reading below ends when the transport holds its input: Held runs
	// once the last request it hands on was taken.
	held, stop := context.WithCancel(context.Background())
	defer stop()
	s := newTestStdio(t, strings.NewReader(input.String()), out, 0, func(s *stdio) {
		s.flow.Limit = limit
		s.flow.Held = stop
	})

	// The SDK's part: read each request and answer it from its own
	// goroutine, as a handler would.
	var answers []chan error
	read := func(ctx context.Context) (n int, err error) {
		for {
			msg, err := s.Read(ctx)
			if err != nil {
				return n, err
			}
			answered := make(chan error, 1)
			answers = append(answers, answered)
			go func() {
				answered <- s.Write(context.Background(), &jsonrpc.Response{ID: msg.(*jsonrpc.Request).ID, Result: json.RawMessage(`{}`)})
			}()
			if n++; len(answers) == 1 {
				// The first answer is being written (and stays stuck):
				// from here on the client is not reading.
				<-out.entered
			}
		}
	}
	n, err := read(held)
	if err != context.Canceled || n != limit {
		t.Errorf("%d requests handed on (%v) before the input was held, want %d", n, err, limit)
	}
	close(out.release)
	more, err := read(context.Background())
	if err != io.EOF || n+more != requests {
		t.Errorf("%d requests handed on (%v) once the answers were read, want %d", n+more, err, requests)
	}
	for _, a := range answers {
		if err := <-a; err != nil {
			t.Fatal(err)
		}
	}
	if !s.flow.Drain(context.Background(), 0) {
		t.Error("requests are left unanswered")
	}
}
