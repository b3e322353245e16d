package lspserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestStreamDoesNotAllocateOversizedBodies reads past an oversized message
// and checks that memory allocated stays far below its size.
func TestStreamDoesNotAllocateOversizedBodies(t *testing.T) {
	valid := `{"jsonrpc":"2.0","id":1,"method":"toolhost/status"}`
	validFrame := fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(valid), valid)
	honest := `{"jsonrpc":"2.0","method":"x","params":{"pad":"` + strings.Repeat("x", 16<<20) + `"}}`
	tests := []struct {
		name  string
		limit int64
		input string
		// claimed is the Content-Length the oversized message claims.
		claimed int64
	}{
		{name: "lying 2 GiB length", input: "Content-Length: 2147483648\r\n\r\n{}" + validFrame, claimed: 2 << 30},
		{name: "honest 16 MiB body over a 1 MiB cap", limit: 1 << 20,
			input: fmt.Sprintf("Content-Length: %d\r\n\r\n%s%s", len(honest), honest, validFrame), claimed: int64(len(honest))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			s := NewStream(strings.NewReader(tt.input), &out, tt.limit, nil)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			msg, _, err := s.Read(context.Background())
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			call, ok := msg.(*jsonrpc.Request)
			if !ok || call.Method != "toolhost/status" {
				t.Fatalf("read %#v, want the status call after the oversized message", msg)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
				t.Errorf("allocated %d bytes to skip a message claiming %d", grew, tt.claimed)
			}
			if !strings.Contains(out.String(), "server.maxMessageBytes") || !strings.Contains(out.String(), `"id":null`) {
				t.Errorf("no -32600 with id null answered the oversized message: %q", out.String())
			}
		})
	}
}

func TestStreamWritesWholeMessages(t *testing.T) {
	var out bytes.Buffer
	s := NewStream(strings.NewReader(""), &out, 0, nil)
	n := &jsonrpc.Request{Method: "a/b", Params: json.RawMessage(`{"x":1}`)}
	if err := s.Write(n); err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","method":"a/b","params":{"x":1}}`
	if got := out.String(); got != fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(want), want) {
		t.Fatalf("wrote %q", got)
	}
	_ = s.Close()
	if err := s.Write(n); err == nil {
		t.Fatal("a write after Close succeeded")
	}
}

func TestResyncScannerIgnoresStrings(t *testing.T) {
	tests := []struct {
		chunks []string
		// want is the index in the last chunk just past the match, or -1.
		want int
	}{
		{chunks: []string{`{"a":"Content-Length: 5"}`}, want: -1},
		{chunks: []string{`{"a":"\"Content-Length: 5"}`}, want: -1},
		{chunks: []string{`{}Content-Length: 5`}, want: len(`{}Content-Length:`)},
		{chunks: []string{`{}conTENT-len`, `gth: 5`}, want: len(`gth:`)},
		{chunks: []string{`{"x":"a\\"}content-length:`}, want: len(`{"x":"a\\"}content-length:`)},
	}
	for _, tt := range tests {
		var sc resyncScanner
		got := -1
		for _, c := range tt.chunks {
			got = sc.scan([]byte(c))
		}
		if got != tt.want {
			t.Errorf("%q: got %d, want %d", tt.chunks, got, tt.want)
		}
	}
}

func TestTruncateKeepsRunesWhole(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdef", 3, "abc…"},
		{"ééé", 3, "é…"}, // byte 3 is inside the second é
		{"ééé", 4, "éé…"},
	}
	for _, tt := range tests {
		if got := truncate(tt.in, tt.n); got != tt.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

// countingWriter counts what is written and keeps nothing.
type countingWriter struct{ n int }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

// TestStreamResyncIsIterative reads a stream of oversized headers, each
// cut short by the next, under a small stack limit: resynchronising must
// not grow the stack (or memory) with the number of headers.
func TestStreamResyncIsIterative(t *testing.T) {
	const headers = 100_000
	valid := `{"jsonrpc":"2.0","id":1,"method":"toolhost/status"}`
	input := strings.Repeat("Content-Length: 100000000\r\n\r\n", headers) +
		fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(valid), valid)
	defer debug.SetMaxStack(debug.SetMaxStack(16 << 20))
	out := &countingWriter{}
	s := NewStream(strings.NewReader(input), out, 1<<20, nil)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	msg, _, err := s.Read(context.Background())
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if call, ok := msg.(*jsonrpc.Request); !ok || call.Method != "toolhost/status" {
		t.Fatalf("read %#v, want the status call after the oversized headers", msg)
	}
	if out.n < headers*100 {
		t.Errorf("wrote %d bytes of answers for %d oversized headers", out.n, headers)
	}
	if after.StackInuse > 8<<20 {
		t.Errorf("stack in use %d bytes after %d resyncs", after.StackInuse, headers)
	}
}
