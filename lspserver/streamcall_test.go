package lspserver

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestStreamCarriesParams: a request to the client is framed with its
// params exactly as encoded (not parsed, compacted or escaped again), and
// another stream reads it back as the same request, its params as sent.
func TestStreamCarriesParams(t *testing.T) {
	params := json.RawMessage(`{"label":"Write <a> & \"b\"","edit":{"changes":{}},"text":"\u2028 ` + "\u2028" + `"}`)
	var out bytes.Buffer
	s := NewStream(strings.NewReader(""), &out, 0, nil)
	id, _ := jsonrpc.MakeID(float64(42))
	if err := s.Write(&jsonrpc.Request{ID: id, Method: "workspace/applyEdit", Params: params}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out.Bytes(), params) {
		t.Fatalf("the params were not written as encoded: %s", out.String())
	}
	in := NewStream(bytes.NewReader(out.Bytes()), &bytes.Buffer{}, 0, nil)
	msg, _, err := in.Read(context.Background())
	if err != nil {
		t.Fatalf("the written request does not read back: %v (%s)", err, out.String())
	}
	got, ok := msg.(*jsonrpc.Request)
	if !ok || got.Method != "workspace/applyEdit" || got.ID != id {
		t.Fatalf("read back %#v from %s", msg, out.String())
	}
	if !bytes.Equal(got.Params, params) {
		t.Fatalf("params read back as %s, want %s", got.Params, params)
	}
}
