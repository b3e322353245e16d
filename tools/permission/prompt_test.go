package permission

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/tools"
)

// TestPromptIsCheckPrompt: for calls Decide says "ask" about, Prompt tells
// the very prompt Check shows, with nobody asked and no rule remembered.
func TestPromptIsCheckPrompt(t *testing.T) {
	e := newEnv(t, `{"permissions": {"ask": ["Bash(git push:*)"]}}`)
	for _, cl := range []call{
		bash("make test"),
		bash("git push origin main"),
		writes(editTool, "src/a.go"),
		reads(readTool, e.outside+"/secret.txt"),
		fetch("example.com"),
	} {
		c := e.checker(tools.ModeDefault)
		got, _, host := run(t, c, cl)
		if got != asked {
			t.Fatalf("%s: Check %s, want ask", cl.tool.Name(), got)
		}
		pc := tools.PermissionCall{CallID: "c1", Tool: cl.tool, Input: json.RawMessage(`{"x":1}`), Access: cl.access}
		if v := c.Decide(nil, pc).Verdict; v != tools.VerdictAsk {
			t.Fatalf("%s: Decide %s, want ask", cl.tool.Name(), v)
		}
		prompt := c.Prompt(context.Background(), nil, pc)
		if !reflect.DeepEqual(prompt, host.requests[0]) {
			t.Errorf("%s: Prompt %+v, Check showed %+v", cl.tool.Name(), prompt, host.requests[0])
		}
		if r := c.SessionRules(); len(r) != 0 {
			t.Errorf("session rules after Prompt: %v", r)
		}
	}
}

// TestPrefixPattern: a suggested prefix rule keeps a command's leading plain words.
func TestPrefixPattern(t *testing.T) {
	tests := map[string]string{
		"npm run test -- -u":   "npm run test:*",
		"npm test":             "npm test:*",
		"ls":                   "ls:*",
		"git commit -m x":      "git commit:*",
		"go test ./...":        "go test:*",
		"./scripts/build.sh a": "./scripts/build.sh a",
		"cat secrets.txt":      "cat:*",
	}
	for in, want := range tests {
		if got := prefixPattern(strings.Fields(in)); got != want {
			t.Errorf("prefixPattern(%q) = %q, want %q", in, got, want)
		}
	}
}
