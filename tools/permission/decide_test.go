package permission

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/tools"
)

// TestDecideAgreesWithCheck runs each call through Decide and through Check
// with a host that records its prompt: Decide must come to the same verdict
// and, when it asks, name the very prompt Check showed, while asking nobody.
func TestDecideAgreesWithCheck(t *testing.T) {
	e := newEnv(t, `{"permissions": {"allow": ["Bash(git status)"], "deny": ["Read(./.env)"], "ask": ["Bash(git push:*)"]}}`)
	tests := []struct {
		name string
		mode string
		call call
		want verdict
	}{
		{"read inside", tools.ModeDefault, reads(readTool, "src/a.go"), allowed},
		{"read denied by rule", tools.ModeDefault, reads(readTool, ".env"), denied},
		{"read outside asks", tools.ModeDefault, reads(readTool, e.outside+"/secret.txt"), asked},
		{"allowed command", tools.ModeDefault, bash("git status"), allowed},
		{"command asks", tools.ModeDefault, bash("make test"), asked},
		{"ask rule", tools.ModeBypassPermissions, bash("git push origin main"), allowed},
		{"ask rule in default", tools.ModeDefault, bash("git push origin main"), asked},
		{"edit asks", tools.ModeDefault, writes(editTool, "src/a.go"), asked},
		{"edit in acceptEdits", tools.ModeAcceptEdits, writes(editTool, "src/a.go"), allowed},
		{"write outside refused", tools.ModeBypassPermissions, writes(writeTool, e.outside+"/x"), denied},
		{"dontAsk denies", tools.ModeDontAsk, bash("make test"), denied},
		{"plan refuses edits", tools.ModePlan, writes(editTool, "src/a.go"), denied},
		{"fetch asks", tools.ModeDefault, fetch("example.com"), asked},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := e.checker(tt.mode)
			got, out, host := run(t, c, tt.call)
			if got != tt.want {
				t.Fatalf("Check: %s, want %s", got, tt.want)
			}
			d, err := c.Decide(context.Background(), tools.PermissionCall{CallID: "c1", Tool: tt.call.tool, Input: json.RawMessage(`{"x":1}`), Access: tt.call.access})
			if err != nil {
				t.Fatal(err)
			}
			if d.Decision != string(tt.want) {
				t.Fatalf("Decide: %s (%s), want %s", d.Decision, d.Reason, tt.want)
			}
			switch tt.want {
			case asked:
				if d.Request == nil || !reflect.DeepEqual(*d.Request, host.requests[0]) {
					t.Errorf("Decide's prompt %+v, Check showed %+v", d.Request, host.requests[0])
				}
				if d.Reason == "" {
					t.Error("an ask without a reason")
				}
			case denied:
				if d.Reason != out.Message {
					t.Errorf("Decide's reason %q, Check's message %q", d.Reason, out.Message)
				}
			}
		})
	}
}

// TestDecideRemembersNothing: deciding on a call the user would be asked
// about adds no session rule, whatever the prompt's suggestions.
func TestDecideRemembersNothing(t *testing.T) {
	e := newEnv(t, "")
	c := e.checker(tools.ModeDefault)
	d, err := c.Decide(context.Background(), tools.PermissionCall{Tool: bashTool, Input: json.RawMessage(`{}`), Access: tools.Access{Command: "make"}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Decision != tools.PermissionAsk || !strings.Contains(d.Request.Title, "make") {
		t.Fatalf("Decide = %+v, want ask naming the command", d)
	}
	if r := c.SessionRules(); len(r) != 0 {
		t.Errorf("session rules after Decide: %v", r)
	}
}
