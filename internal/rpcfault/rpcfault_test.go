package rpcfault

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestDecodeClassifies: text that is not JSON is a parse error with id
// null; JSON that is not a usable message an invalid request that repeats
// the id when it can be repeated exactly; a malformed response without an
// id is not answered.
func TestDecodeClassifies(t *testing.T) {
	deep := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":` + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + `}}`
	deepInString := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"s":"` + strings.Repeat(`[\"`, 5000) + `"}}`
	tests := []struct {
		body string
		// code is the fault's code; 0 for a message that decodes.
		code int64
		// id is the id the answer repeats ("" for null).
		id string
		// reason is part of the fault's reason.
		reason string
		// silent marks a fault that gets no answer.
		silent bool
	}{
		{body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{body: `{"jsonrpc":"2.0","id":"a","result":{}}`},
		{body: `{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}`},
		{body: deepInString},
		{body: deep, code: CodeInvalidRequest, reason: "nest more than 1000 levels"},
		{body: `{"jsonrpc":"2.0","id":3,"method":`, code: CodeParseError, reason: "not valid JSON: unexpected end of JSON input (at byte 33)"},
		{body: `{"jsonrpc":"2.0","method":"$/noop"} {}`, code: CodeParseError, reason: "not valid JSON"},
		{body: `nope`, code: CodeParseError, reason: "invalid character 'o'"},
		{body: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, code: CodeInvalidRequest, reason: "must be a JSON object (batches are not supported)"},
		{body: `"just a string"`, code: CodeInvalidRequest, reason: "must be a JSON object"},
		{body: `{"foo":1,"id":7}`, code: CodeInvalidRequest, id: "7", reason: `"jsonrpc" must be "2.0"`},
		{body: `{"JSONRPC":"2.0","id":1,"method":"ping"}`, code: CodeInvalidRequest, id: "1", reason: `"jsonrpc" must be "2.0"`},
		{body: `{"jsonrpc":"2.0","id":4}`, code: CodeInvalidRequest, id: "4", reason: `needs "method" (a request or notification) or "result"/"error" (a response)`},
		{body: `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, code: CodeInvalidRequest, reason: `"id" must be a string or a number`},
		{body: `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, code: CodeInvalidRequest, id: "1.5", reason: "repeat it exactly"},
		{body: `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, code: CodeInvalidRequest, id: "9007199254740993", reason: "at most 2^53"},
		{body: `{"jsonrpc":"2.0","id":4,"method":5}`, code: CodeInvalidRequest, id: "4", reason: `"method" must be a string`},
		{body: `{"jsonrpc":"2.0","id":4,"method":""}`, code: CodeInvalidRequest, id: "4", reason: "non-empty"},
		{body: `{"jsonrpc":"2.0","id":2,"error":"boom"}`, code: CodeInvalidRequest, id: "2", reason: `"error" must be an object`},
		{body: `{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}}`, code: CodeInvalidRequest, reason: `needs the "id"`, silent: true},
		{body: `{"jsonrpc":"2.0","id":true,"result":{}}`, code: CodeInvalidRequest, reason: `"id"`, silent: true},
	}
	for _, tt := range tests {
		msg, f := Decode([]byte(tt.body))
		name := tt.body
		if len(name) > 80 {
			name = name[:80] + "…"
		}
		if tt.code == 0 {
			if f != nil || msg == nil {
				t.Errorf("%s: refused (%+v), want a message", name, f)
			}
			continue
		}
		if f == nil {
			t.Errorf("%s: decoded as %#v, want fault %d", name, msg, tt.code)
			continue
		}
		if f.Code != tt.code || string(f.ID) != tt.id || !strings.Contains(f.Reason, tt.reason) || f.Answered() == tt.silent {
			t.Errorf("%s: fault %d id %q %q answered %v, want %d id %q mentioning %q answered %v", name, f.Code, f.ID, f.Reason, f.Answered(), tt.code, tt.id, tt.reason, !tt.silent)
		}
	}
}

// TestDecodeAgreesWithTheSDK: Decode takes what the MCP SDK's
// jsonrpc.DecodeMessage takes, as the same message, except where it is
// stricter on purpose: ids the SDK would answer as another number, a
// message with neither method nor result, an empty method.
func TestDecodeAgreesWithTheSDK(t *testing.T) {
	stricter := map[string]bool{
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`:              true,
		`{"jsonrpc":"2.0","id":1.0,"method":"ping"}`:              true,
		`{"jsonrpc":"2.0","id":1e2,"method":"ping"}`:              true,
		`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`: true,
		`{"jsonrpc":"2.0","id":1,"method":null}`:                  true,
		`{"jsonrpc":"2.0","id":1,"method":""}`:                    true,
		`{"jsonrpc":"2.0","id":1}`:                                true,
	}
	nested := func(n int) string {
		return `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + `}}`
	}
	for _, msg := range []string{
		nested(999),  // 1000 levels in all: the SDK's limit
		nested(1000), // one more: the SDK refuses it
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"s":"` + strings.Repeat("[", 5000) + `"}}`,
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
	} {
		ours, f := Decode([]byte(msg))
		sdkMsg, sdkErr := jsonrpc.DecodeMessage([]byte(msg))
		if stricter[msg] {
			if f == nil || sdkErr != nil {
				t.Errorf("%s: Decode says %v, SDK says %v; want Decode alone to refuse it", msg, f, sdkErr)
			}
			continue
		}
		if (f == nil) != (sdkErr == nil) {
			t.Errorf("%.200s: Decode says %v, SDK says %v", msg, f, sdkErr)
			continue
		}
		if f == nil && fmt.Sprintf("%#v", ours) != fmt.Sprintf("%#v", sdkMsg) {
			// Both are the same message: same id, method, params, result.
			a, _ := Encode(ours)
			b, _ := Encode(sdkMsg)
			if !bytes.Equal(a, b) {
				t.Errorf("%s: Decode reads %s, the SDK %s", msg, a, b)
			}
		}
	}
}

// TestDecodeSurvivesAnyDepth: a message of megabytes of brackets is
// refused, not parsed into a stack overflow.
func TestDecodeSurvivesAnyDepth(t *testing.T) {
	const n = 8 << 20
	body := `{"jsonrpc":"2.0","id":1,"method":"x","params":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`
	if _, f := Decode([]byte(body)); f == nil || f.Code != CodeInvalidRequest {
		t.Fatalf("a message nesting %d levels: %+v", n, f)
	}
}

// TestEncodeKeepsParamsAndResultsAsSent: params and results go out as
// they were encoded, byte for byte (nothing re-escaped, nothing sniffed:
// a result holding `"error":{"code":0,` stays a result), and read back as
// the same message with the SDK's decoder.
func TestEncodeKeepsParamsAndResultsAsSent(t *testing.T) {
	tricky := json.RawMessage(`{"error":{"code":0,"message":"x"},"html":"\u003ca\u003e <b> &amp;","sep":"\u2028 ` + "\u2028" + `","nl":"a\nb","id":7}`)
	id, _ := jsonrpc.MakeID("call-1")
	for _, msg := range []jsonrpc.Message{
		&jsonrpc.Response{ID: id, Result: tricky},
		&jsonrpc.Request{ID: id, Method: "workspace/applyEdit", Params: tricky},
		&jsonrpc.Request{Method: "$/progress", Params: tricky},
	} {
		data, err := Encode(msg)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, tricky) {
			t.Errorf("%s does not carry the payload as sent", data)
		}
		back, err := jsonrpc.DecodeMessage(data)
		if err != nil {
			t.Fatalf("%s does not decode: %v", data, err)
		}
		switch m := back.(type) {
		case *jsonrpc.Response:
			if !bytes.Equal(m.Result, tricky) || m.Error != nil || m.ID != id {
				t.Errorf("read back %+v", m)
			}
		case *jsonrpc.Request:
			if !bytes.Equal(m.Params, tricky) || m.Method != msg.(*jsonrpc.Request).Method || m.ID != msg.(*jsonrpc.Request).ID {
				t.Errorf("read back %+v", m)
			}
		}
	}
}

// TestEncodeErrorsAlwaysCarryACode: an error answer keeps a JSON-RPC
// error's code and gets one otherwise; a response with neither result nor
// error answers null.
func TestEncodeErrorsAlwaysCarryACode(t *testing.T) {
	id, _ := jsonrpc.MakeID(float64(3))
	tests := []struct {
		resp *jsonrpc.Response
		want string
	}{
		{&jsonrpc.Response{ID: id}, `{"jsonrpc":"2.0","id":3,"result":null}`},
		{&jsonrpc.Response{ID: id, Error: Errorf(CodeInvalidParams, "bad %q", "x")}, `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"bad \"x\""}}`},
		{&jsonrpc.Response{ID: id, Error: fmt.Errorf("handling: %w", Errorf(CodeMethodNotFound, "no"))}, `{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"handling: no"}}`},
		{&jsonrpc.Response{ID: id, Error: errors.New("plain")}, `{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"plain"}}`},
		{&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Message: "code zero"}}, `{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"code zero"}}`},
	}
	for _, tt := range tests {
		got, err := Encode(tt.resp)
		if err != nil || string(got) != tt.want {
			t.Errorf("Encode(%v) = %s, %v; want %s", tt.resp.Error, got, err, tt.want)
		}
	}
	if got := string(EncodeFault(&Fault{Code: CodeParseError}, "not JSON")); got != `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"not JSON"}}` {
		t.Errorf("EncodeFault = %s", got)
	}
}

// TestSyntaxDetail says where text stops being JSON.
func TestSyntaxDetail(t *testing.T) {
	tests := []struct{ text, want string }{
		{`{"a":`, "unexpected end of JSON input"},
		{`{"a" 1}`, "(at byte 6)"},
		{`hello`, "invalid character 'h'"},
		{`{"a":1}`, "unexpected content"},
	}
	for _, tt := range tests {
		if got := syntaxDetail([]byte(tt.text)); !strings.Contains(got, tt.want) {
			t.Errorf("syntaxDetail(%q) = %q, want it to contain %q", tt.text, got, tt.want)
		}
	}
}
