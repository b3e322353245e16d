package mcpserver

import (
	"io"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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

// TestDecodableAgreesWithTheSDK: the guard's stand-in for the SDK's
// jsonrpc.DecodeMessage accepts exactly what the SDK accepts, on messages
// picked at the edges of each rule. A line the guard passes and the SDK
// refuses would end the session.
func TestDecodableAgreesWithTheSDK(t *testing.T) {
	// Ids the SDK accepts but cannot repeat exactly (it keeps an int64).
	stricter := map[string]bool{
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`:              true,
		`{"jsonrpc":"2.0","id":1.0,"method":"ping"}`:              true,
		`{"jsonrpc":"2.0","id":1e2,"method":"ping"}`:              true,
		`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`: true,
	}
	// params nesting n levels inside the message's own object.
	nested := func(n int) string {
		return `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + `}}`
	}
	msgs := []string{
		nested(999),  // 1000 levels in all: the SDK's limit
		nested(1000), // one more: the SDK refuses it
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"s":"` + strings.Repeat("[", 5000) + `"}}`,
	}
	for _, msg := range append(msgs, []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"Read"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1.0,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1e2,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":-3,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":[1],"method":"ping"}`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":null}`,
		`{"jsonrpc":"2.0","id":1,"method":5}`,
		`{"jsonrpc":"2.0","id":1,"method":""}`,
		`{"jsonrpc":"2.1","id":1,"method":"ping"}`,
		`{"jsonrpc":2,"id":1,"method":"ping"}`,
		`{"jsonrpc":null,"id":1,"method":"ping"}`,
		`{"JSONRPC":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2\u002e0","id":1,"method":"ping"}`,
		`{"id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"result":null}`,
		`{"jsonrpc":"2.0","id":1}`,
		`{"jsonrpc":"2.0","result":{}}`,
		`{"jsonrpc":"2.0","id":null,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"x","data":[1]}}`,
		`{"jsonrpc":"2.0","id":1,"error":null}`,
		`{"jsonrpc":"2.0","id":1,"error":"boom"}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":5}}`,
		`{"jsonrpc":"2.0","id":1,"error":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":"oops"}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","extra":[1,2]}`,
		`"just a string"`,
		`42`,
		`null`,
	}...) {
		_, _, ours := decodable([]byte(msg))
		_, sdkErr := jsonrpc.DecodeMessage([]byte(msg))
		if stricter[msg] {
			// The SDK would take it and answer with another id.
			if ours == nil || sdkErr != nil {
				t.Errorf("%s: guard says %v, SDK says %v; want the guard alone to refuse it", msg, ours, sdkErr)
			}
			continue
		}
		if (ours == nil) != (sdkErr == nil) {
			t.Errorf("%.200s: guard says %v, SDK says %v", msg, ours, sdkErr)
		}
	}
}

// TestUnansweredRequests: the guard notes each request it passes, a
// response written for it crosses it off, and a cancelled request (which
// MCP never answers) is forgotten, so the end of the input waits only for
// real answers.
func TestUnansweredRequests(t *testing.T) {
	w := newLockedWriter(io.Discard)
	g := newLineGuard(strings.NewReader(""), w, 0, slog.New(slog.DiscardHandler))
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"two","method":"tools/call","params":{"name":"Bash"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"Read"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":9,"result":{}}`, // the client answering the server
	} {
		if _, code, msg := g.check([]byte(line)); code != 0 {
			t.Fatalf("%s refused: %s", line, msg)
		}
	}
	left := func() int {
		w.asked.mu.Lock()
		defer w.asked.mu.Unlock()
		return len(w.asked.ids)
	}
	if n := left(); n != 3 {
		t.Fatalf("%d requests noted, want 3", n)
	}
	for _, out := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"roots/list"}`,                            // a request of the server: answers nothing
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"id":"two"}}`, // a notification
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":"two","error":{"code":-1,"message":"x"}}`,
	} {
		if _, err := w.Write([]byte(out + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	if n := left(); n != 1 || w.asked.wait(0) {
		t.Fatalf("%d requests left after two answers, want 1 (and wait must not report none)", n)
	}
	if _, code, _ := g.check([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`)); code != 0 {
		t.Fatal("the cancellation was refused")
	}
	if !w.asked.wait(time.Second) {
		t.Fatalf("%d requests left after the cancellation, want none", left())
	}
}

// TestAnsweredIDs reads the ids a written line answers.
func TestAnsweredIDs(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"{\"id\":8}"}]}}`, []string{"n:7"}},
		{`{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"no"}}`, []string{"s:a"}},
		{`{"result":{},"id":5,"jsonrpc":"2.0"}`, []string{"n:5"}},
		{`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{}}]`, []string{"n:1", "n:2"}},
		{`{"jsonrpc":"2.0","id":4,"method":"elicitation/create","params":{}}`, nil},
		{`{"jsonrpc":"2.0","method":"notifications/message","params":{"id":3}}`, nil},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"not JSON"}}`, nil},
		{`not json`, nil},
	}
	for _, tt := range tests {
		if got := answeredIDs([]byte(tt.line)); !slices.Equal(got, tt.want) {
			t.Errorf("answeredIDs(%s) = %v, want %v", tt.line, got, tt.want)
		}
	}
}

// TestGuardPassesGoodLinesWhole: however the input arrives (here a byte at
// a time), the SDK gets the good lines whole and in order, a last line
// without a newline included, and nothing of the bad ones.
func TestGuardPassesGoodLinesWhole(t *testing.T) {
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
	w := newLockedWriter(&answers)
	g := newLineGuard(iotest.OneByteReader(strings.NewReader(input)), w, 128, slog.New(slog.DiscardHandler))
	g.drain = 0 // nothing answers the requests here
	got, err := io.ReadAll(iotest.OneByteReader(g))
	if err != nil {
		t.Fatal(err)
	}
	want := good[0] + "\n" + good[1] + "\r\n" + good[2] + "\n"
	if string(got) != want {
		t.Errorf("passed to the SDK:\n%q\nwant\n%q", got, want)
	}
	if n := strings.Count(answers.String(), "\n"); n != 2 || !strings.Contains(answers.String(), "-32700") || !strings.Contains(answers.String(), "longer than 128 bytes") {
		t.Errorf("answers to the bad lines:\n%s", answers.String())
	}
}

// TestCheckClassifiesLines: text that is not JSON, array or not, is a parse
// error; JSON that is not a JSON-RPC message an invalid request.
func TestCheckClassifiesLines(t *testing.T) {
	g := newLineGuard(strings.NewReader(""), newLockedWriter(io.Discard), 0, slog.New(slog.DiscardHandler))
	// Deeper than the SDK reads: it would end the session on them.
	deep := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}}`
	deepInBatch := `[{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":` + strings.Repeat("[", 998) + strings.Repeat("]", 998) + `}}]`
	for line, want := range map[string]int{
		deep:        codeInvalidRequest,
		deepInBatch: codeInvalidRequest,
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`: 0,
		`{"jsonrpc":"2.0","id":1,"method":`:        codeParseError,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"`: codeParseError,
		`nope`:            codeParseError,
		`"just a string"`: codeInvalidRequest,
		`{"id":1}`:        codeInvalidRequest,
		`[]`:              codeInvalidRequest,
	} {
		if _, code, msg := g.check([]byte(line)); code != want {
			t.Errorf("check(%.200s) = %d (%s), want %d", line, code, msg, want)
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
	g := newLineGuard(strings.NewReader(input), newLockedWriter(&answers), max, slog.New(slog.DiscardHandler))
	g.drain = 0
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, err := io.ReadAll(g)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != good {
		t.Errorf("passed %q, want only the good line", got)
	}
	if !strings.Contains(answers.String(), "longer than") {
		t.Errorf("no answer to the long line: %q", answers.String())
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > max*3/2 {
		t.Errorf("allocated %d bytes to skip a line over a cap of %d", alloc, max)
	}
}
