package mcpserver

import (
	"testing"

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
