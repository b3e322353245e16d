package lspserver

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// TestStreamWritesCallsAsEncoded: a request to the client is framed with
// its params as jsonrpc2 encoded them, and reads back as the same request.
func TestStreamWritesCallsAsEncoded(t *testing.T) {
	var out bytes.Buffer
	s := NewStream(strings.NewReader(""), &out, 0, nil)
	params := json.RawMessage(`{"label":"Write <a> & \"b\"","edit":{"changes":{}}}`)
	call, err := jsonrpc2.NewCall(jsonrpc2.NewNumberID(42), "workspace/applyEdit", params)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(context.Background(), call); err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(out.String(), "\r\n\r\n")
	if !ok {
		t.Fatalf("not framed: %q", out.String())
	}
	msg, fault := decodeMessage([]byte(body))
	if fault != nil {
		t.Fatalf("the written request does not decode: %v (%s)", fault.err, body)
	}
	got, ok := msg.(*jsonrpc2.Call)
	if !ok || got.Method() != "workspace/applyEdit" || got.ID() != jsonrpc2.NewNumberID(42) || !bytes.Equal(got.Params(), call.Params()) {
		t.Fatalf("read back %#v from %s", msg, body)
	}
	var v map[string]any
	if err := json.Unmarshal(got.Params(), &v); err != nil || v["label"] != `Write <a> & "b"` {
		t.Fatalf("params read back as %v (%v)", v, err)
	}
}
