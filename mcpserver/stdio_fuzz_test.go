package mcpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzLineGuard feeds the guard arbitrary input: it must never panic, pass
// the SDK only lines it decodes (each element of a batch), none longer
// than the cap, and answer everything else with one JSON-RPC error line
// each, with a JSON-RPC code.
func FuzzLineGuard(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n",
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}` + "\n",
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"x"}]` + "\n",
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}` + "\n[1]\n",
		"garbage\n\n\r\n{\"a\":",
		`{"jsonrpc":"2.0","id":"x","error":{"code":1,"message":"m"}}`,
	} {
		f.Add([]byte(seed))
	}
	const max = 256
	f.Fuzz(func(t *testing.T, input []byte) {
		var answers bytes.Buffer
		g := newLineGuard(bytes.NewReader(input), newLockedWriter(&answers), max, slog.New(slog.DiscardHandler))
		g.drain = 0
		passed, err := io.ReadAll(g)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.SplitAfter(passed, []byte("\n")) {
			line = bytes.TrimSpace(line)
			if len(line) == 0 {
				continue
			}
			if len(line) > max {
				t.Fatalf("passed a line of %d bytes over the cap of %d", len(line), max)
			}
			msgs := []json.RawMessage{line}
			if line[0] == '[' {
				if err := json.Unmarshal(line, &msgs); err != nil {
					t.Fatalf("passed a batch that is not JSON: %q", line)
				}
			}
			for _, m := range msgs {
				if _, err := jsonrpc.DecodeMessage(m); err != nil {
					t.Fatalf("passed a message the SDK refuses (%v): %q", err, m)
				}
			}
		}
		for _, line := range bytes.Split(bytes.TrimSpace(answers.Bytes()), []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			var a fault
			if err := json.Unmarshal(line, &a); err != nil || a.JSONRPC != "2.0" || a.Error.Code > -32000 || a.Error.Code < -32768 || a.Error.Message == "" {
				t.Fatalf("an answer is not a JSON-RPC error: %q", line)
			}
		}
	})
}
