package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// lineClient speaks newline-delimited JSON-RPC to Serve over pipes, as an
// MCP client on stdio would, including clients that send bad lines.
type lineClient struct {
	t     *testing.T
	w     io.Writer
	lines chan string
}

// serveLines runs Serve in a temporary workspace and returns a client for it.
func serveLines(t *testing.T, opts Options) *lineClient {
	t.Helper()
	opts.Roots = []string{t.TempDir()}
	ctx, cancel := context.WithCancel(context.Background())
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, serverIn, serverOut, opts) }()
	c := &lineClient{t: t, w: clientOut, lines: make(chan string, 64)}
	go func() {
		sc := bufio.NewScanner(clientIn)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() {
		cancel()
		_ = clientOut.Close()
		_ = clientIn.Close()
		<-served
	})
	return c
}

func (c *lineClient) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.w, line+"\n"); err != nil {
		c.t.Fatalf("writing %q: %v", line, err)
	}
}

// next returns the next line that is not a request or notification from
// the server (roots/list, list_changed): an answer, or a batch of them.
func (c *lineClient) next() string {
	c.t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				c.t.Fatal("the server closed its output")
			}
			var m struct {
				Method string `json:"method"`
			}
			if strings.HasPrefix(line, "[") || json.Unmarshal([]byte(line), &m) == nil && m.Method == "" {
				return line
			}
		case <-timeout:
			c.t.Fatal("no answer from the server within 10 s")
		}
	}
}

// handshake initializes the session at protocol version v.
func (c *lineClient) handshake(v string) {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"` + v + `","capabilities":{},"clientInfo":{"name":"lines","version":"1"}}}`)
	if got := c.next(); !strings.Contains(got, `"id":"init","result"`) {
		c.t.Fatalf("initialize answered %s", got)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// TestBadLinesAreAnsweredAndServingGoesOn: every kind of bad input line
// gets a JSON-RPC error naming the fault, and the session keeps serving:
// a ping after it is answered. (The SDK alone ends the session on each.)
func TestBadLinesAreAnsweredAndServingGoesOn(t *testing.T) {
	long := `{"jsonrpc":"2.0","id":"long","method":"ping","params":{"pad":"` + strings.Repeat("x", 5000) + `"}}`
	tests := []struct {
		name    string
		version string
		line    string
		// want are substrings of the answer; empty for a line that gets none.
		want []string
	}{
		{name: "not JSON", version: "2025-06-18", line: "this is not json", want: []string{`"id":null`, `"code":-32700`, "not valid JSON", "at byte"}},
		{name: "JSON but not JSON-RPC", version: "2025-06-18", line: `{"foo":1,"id":7}`, want: []string{`"id":7`, `"code":-32600`, "a message needs"}},
		{name: "an id of the wrong type", version: "2025-06-18", line: `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, want: []string{`"id":null`, `"code":-32600`, `\"id\" must be a string or a number`}},
		{name: "a message over the size limit", version: "2025-06-18", line: long, want: []string{`"id":null`, `"code":-32600`, "longer than 4096 bytes", "-max-message-bytes"}},
		{name: "a batch where batches were dropped", version: "2025-06-18", line: `[{"jsonrpc":"2.0","id":4,"method":"ping"}]`, want: []string{`"id":null`, `"code":-32600`, "not part of MCP 2025-06-18"}},
		{name: "an empty batch", version: "2025-03-26", line: `[]`, want: []string{`"id":null`, `"code":-32600`, "empty batch"}},
		{name: "a batch with a bad message", version: "2025-03-26", line: `[{"jsonrpc":"2.0","id":4,"method":"ping"},{"id":5}]`, want: []string{`"code":-32600`, "message 2 of the batch"}},
		{name: "a blank line", version: "2025-06-18", line: "   "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := serveLines(t, Options{MaxMessageBytes: 4096})
			c.handshake(tt.version)
			c.send(tt.line)
			if len(tt.want) > 0 {
				got := c.next()
				for _, w := range tt.want {
					if !strings.Contains(got, w) {
						t.Errorf("answer %s lacks %s", got, w)
					}
				}
			}
			c.send(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
			if got := c.next(); got != `{"jsonrpc":"2.0","id":"after","result":{}}` {
				t.Errorf("ping after the bad line: %s", got)
			}
		})
	}
}

// TestBatchesWhereTheProtocolHasThem: under MCP 2025-03-26 a batch passes
// the guard and is answered as a batch.
func TestBatchesWhereTheProtocolHasThem(t *testing.T) {
	c := serveLines(t, Options{})
	c.handshake("2025-03-26")
	c.send(`[{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","id":5,"method":"ping"}]`)
	var batch []map[string]any
	got := c.next()
	if err := json.Unmarshal([]byte(got), &batch); err != nil || len(batch) != 2 {
		t.Fatalf("answer to a batch of two pings: %s", got)
	}
}

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
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"Read"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
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
	} {
		_, _, ours := decodable([]byte(msg))
		_, sdkErr := jsonrpc.DecodeMessage([]byte(msg))
		if (ours == nil) != (sdkErr == nil) {
			t.Errorf("%s: guard says %v, SDK says %v", msg, ours, sdkErr)
		}
	}
}
