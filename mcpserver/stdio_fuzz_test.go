package mcpserver

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/toolhost/toolhost/internal/rpcfault"
)

// FuzzStdio feeds the transport arbitrary input: it must never panic, hand
// the SDK only messages that come from lines within the cap and that the
// SDK's own decoder reads back the same, and answer everything else with
// JSON-RPC error lines, each with a JSON-RPC code.
func FuzzStdio(f *testing.F) {
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
		s := newTestStdio(t, bytes.NewReader(input), &answers, max, nil)
		msgs, err := readAll(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, msg := range msgs {
			data, err := rpcfault.Encode(msg)
			if err != nil {
				t.Fatalf("cannot encode %#v: %v", msg, err)
			}
			back, err := jsonrpc.DecodeMessage(data)
			if err != nil {
				t.Fatalf("handed on a message the SDK refuses (%v): %s", err, data)
			}
			if again, _ := rpcfault.Encode(back); !bytes.Equal(again, data) {
				t.Fatalf("the SDK reads %s as %s", data, again)
			}
			var size int
			switch m := msg.(type) {
			case *jsonrpc.Request:
				size = len(m.Params)
			case *jsonrpc.Response:
				size = len(m.Result)
			}
			if size > max {
				t.Fatalf("handed on a message from a line over the cap of %d: %s", max, data)
			}
		}
		for _, line := range bytes.Split(bytes.TrimSpace(answers.Bytes()), []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			var a struct {
				JSONRPC string
				Error   struct {
					Code    int64
					Message string
				}
			}
			if err := json.Unmarshal(line, &a); err != nil || a.JSONRPC != "2.0" || a.Error.Code > -32000 || a.Error.Code < -32768 || a.Error.Message == "" {
				t.Fatalf("an answer is not a JSON-RPC error: %q", line)
			}
		}
	})
}
