package lspserver

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The VS Code extension keeps toolhost's method names in one file
// (src/logic/protocol.ts). Its client requests are exactly the server's
// Methods, and every name it listens for is one the server sends.
func TestVSCodeProtocolNames(t *testing.T) {
	raw, err := os.ReadFile("../editor-client/vscode/src/logic/protocol.ts")
	if err != nil {
		t.Fatal(err)
	}
	src := string(raw)
	name := regexp.MustCompile(`"(toolhost/[A-Za-z]+)"`)
	block := func(of string) []string {
		start := strings.Index(src, "export const "+of+" = {")
		if start < 0 {
			t.Fatalf("protocol.ts has no %s", of)
		}
		end := strings.Index(src[start:], "} as const")
		var out []string
		for _, m := range name.FindAllStringSubmatch(src[start:start+end], -1) {
			out = append(out, m[1])
		}
		return out
	}
	if got, want := block("ClientRequests"), Methods; !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
		t.Errorf("protocol.ts ClientRequests %v, server Methods %v", got, want)
	}

	// What the server sends: the names its Go code has.
	sent := methodsInCode(t)
	for _, of := range []string{"ServerRequests", "ServerNotifications"} {
		names := block(of)
		if len(names) == 0 {
			t.Errorf("protocol.ts %s is empty", of)
		}
		for _, n := range names {
			if _, ok := sent[n]; !ok {
				t.Errorf("protocol.ts %s names %s, which the server never sends", of, n)
			}
		}
	}
}
