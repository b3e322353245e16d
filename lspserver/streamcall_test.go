package lspserver

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// TestStreamCarriesParams: a request to the client is framed with its
// params as encoded, whether made with them or with a staged token, and
// another stream reads it back as the same request, its params held for
// the handler.
func TestStreamCarriesParams(t *testing.T) {
	params := json.RawMessage(`{"label":"Write <a> & \"b\"","edit":{"changes":{}}}`)
	for _, staged := range []bool{false, true} {
		var out bytes.Buffer
		s := NewStream(strings.NewReader(""), &out, 0, nil)
		sent := params
		if staged {
			token, release := s.Stage(params)
			defer release()
			sent = token
		}
		call, err := jsonrpc2.NewCall(jsonrpc2.NewNumberID(42), "workspace/applyEdit", sent)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Write(context.Background(), call); err != nil {
			t.Fatal(err)
		}
		in := NewStream(bytes.NewReader(out.Bytes()), &bytes.Buffer{}, 0, nil)
		msg, _, err := in.Read(context.Background())
		if err != nil {
			t.Fatalf("staged %v: the written request does not read back: %v (%s)", staged, err, out.String())
		}
		got, ok := msg.(*jsonrpc2.Call)
		if !ok || got.Method() != "workspace/applyEdit" || got.ID() != jsonrpc2.NewNumberID(42) {
			t.Fatalf("staged %v: read back %#v from %s", staged, msg, out.String())
		}
		// Unstaged params are as jsonrpc2 encoded them (HTML-escaped);
		// staged ones as they were given.
		want := call.Params()
		if staged {
			want = params
		}
		gotParams := in.Params(got)
		if !bytes.Equal(gotParams, want) {
			t.Fatalf("staged %v: params read back as %s, want %s", staged, gotParams, want)
		}
		if again := in.Params(got); len(again) != 0 {
			t.Errorf("staged %v: held params were given out twice: %s", staged, again)
		}
	}
}

// TestStagedTokenWithoutStaging: a token no call staged (or one released)
// is sent as it is, not as somebody else's params.
func TestStagedTokenWithoutStaging(t *testing.T) {
	var out bytes.Buffer
	s := NewStream(strings.NewReader(""), &out, 0, nil)
	token, release := s.Stage(json.RawMessage(`{"secret":1}`))
	release()
	call, err := jsonrpc2.NewCall(jsonrpc2.NewNumberID(1), "m", token)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(context.Background(), call); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "secret") || !strings.Contains(out.String(), string(token)) {
		t.Fatalf("a released token was written as %s", out.String())
	}
}
