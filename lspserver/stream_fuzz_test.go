package lspserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

// FuzzStream feeds the framing arbitrary input: it must never panic, end
// when the input ends, consume no more than it was given, and answer
// faults only with framed, well-formed JSON-RPC errors.
func FuzzStream(f *testing.F) {
	frame := func(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }
	for _, seed := range []string{
		frame(`{"jsonrpc":"2.0","id":1,"method":"x"}`),
		"Content-Length: 99999999999\r\n\r\n{}",
		"Content-Len",
		"content-length: 2\r\nContent-Type: a\r\n\r\n{}",
		"Content-Length: 5\r\n\r\n{\"a\":Content-Length: 2\r\n\r\n{}",
		"\r\n\r\nhello\r\n",
		frame(`[1,2]`) + frame(`{"jsonrpc":"2.0","id":{},"method":"x"}`),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		var out bytes.Buffer
		s := NewStream(bytes.NewReader(input), &out, 1<<10, nil)
		var total int64
		for {
			_, n, err := s.Read(context.Background())
			total += n
			if err != nil {
				break
			}
		}
		if total > int64(len(input)) {
			t.Fatalf("read %d bytes of %d", total, len(input))
		}
		rest := out.Bytes()
		for len(rest) > 0 {
			var n int
			if _, err := fmt.Sscanf(string(rest), "Content-Length: %d\r\n\r\n", &n); err != nil {
				t.Fatalf("an answer is not framed: %q", rest)
			}
			i := bytes.Index(rest, []byte("\r\n\r\n")) + 4
			var fault struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if i+n > len(rest) || json.Unmarshal(rest[i:i+n], &fault) != nil {
				t.Fatalf("an answer is not JSON: %q", rest)
			}
			if fault.JSONRPC != "2.0" || fault.Error == nil || fault.Error.Code > -32000 || fault.Error.Code < -32800 || fault.Error.Message == "" {
				t.Fatalf("an answer is not a JSON-RPC error: %s", rest[i:i+n])
			}
			rest = rest[i+n:]
		}
	})
}
