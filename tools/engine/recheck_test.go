package engine

import (
	"context"
	"encoding/json"
	"github.com/toolhost/toolhost/tools"
	"strings"
	"sync"
	"testing"
)

// jailChecker denies writes to paths under /outside/, asks for paths under
// /ask/, allows the rest; its first answer may carry an input the user edited.
type jailChecker struct {
	mu      sync.Mutex
	checks  int
	updated json.RawMessage
}

func (c *jailChecker) Decide(tools.Host, tools.PermissionCall) tools.PermissionDecision {
	return tools.PermissionDecision{Verdict: tools.VerdictAllow}
}

func (c *jailChecker) Check(ctx context.Context, host tools.Host, call tools.PermissionCall) (tools.PermissionOutcome, error) {
	c.mu.Lock()
	c.checks++
	first := c.checks == 1
	c.mu.Unlock()
	for _, p := range call.Access.WritePaths {
		switch {
		case strings.HasPrefix(p, "/outside/"):
			return tools.PermissionOutcome{Message: "Error: writes outside the workspace are refused"}, nil
		case strings.HasPrefix(p, "/ask/"):
			ans, err := host.RequestPermission(ctx, tools.PermissionRequest{ToolName: call.Tool.Name(), Input: call.Input})
			if err != nil || ans.Decision != tools.DecisionAllow {
				return tools.PermissionOutcome{Message: "Error: not allowed"}, nil
			}
		}
	}
	if first {
		return tools.PermissionOutcome{Allow: true, UpdatedInput: c.updated}, nil
	}
	return tools.PermissionOutcome{Allow: true}, nil
}

// Input a permission answer or a hook rewrote passes the permission check
// again; the user is not asked again for input they approved themselves.
func TestRewrittenInputIsCheckedAgain(t *testing.T) {
	tests := []struct {
		name string
		// updated is the input the user edited in the dialog; hook is a
		// PreToolUse hook's body.
		updated     string
		hook        string
		wantText    string
		wantPrompts int
	}{
		{name: "user edit leading outside", updated: `{"path":"/outside/authorized_keys"}`,
			wantText: "Error: writes outside the workspace are refused"},
		{name: "user edit inside", updated: `{"path":"/ws/b.go"}`, wantText: `ran with {"path":"/ws/b.go"}`},
		{name: "user edit that would ask is not asked again", updated: `{"path":"/ask/c.go"}`, wantText: `ran with {"path":"/ask/c.go"}`},
		{name: "hook rewrite leading outside",
			hook:     `echo '{"suppressOutput":true,"hookSpecificOutput":{"updatedInput":{"path":"/outside/x"}}}'`,
			wantText: "Error: writes outside the workspace are refused"},
		{name: "hook rewrite that needs asking asks",
			hook:     `echo '{"suppressOutput":true,"hookSpecificOutput":{"updatedInput":{"path":"/ask/d.go"}}}'`,
			wantText: `ran with {"path":"/ask/d.go"}`, wantPrompts: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			edit := &accessTool{
				fakeTool: &fakeTool{name: "Edit", side: tools.SideEffectMutating, schema: `{"type":"object","properties":{"path":{"type":"string"}}}`},
				access:   pathAccess(true),
			}
			reg := tools.NewRegistry()
			reg.Register(tools.CategoryCore, edit)
			checker := &jailChecker{}
			if tt.updated != "" {
				checker.updated = json.RawMessage(tt.updated)
			}
			p := NewPipeline(reg, nil)
			if tt.hook != "" {
				p = hookedPipeline(t, reg, "PreToolUse", tt.hook, 0)
			}
			p.Permissions = checker
			host := newRecordingHost()
			host.answer = &tools.PermissionResponse{Decision: tools.DecisionAllow}
			resp := call(t, p, host, "Edit", `{"path":"/ws/a.go"}`)
			if !strings.Contains(resp.Text(), tt.wantText) {
				t.Errorf("text = %q, want it to contain %q", resp.Text(), tt.wantText)
			}
			ran := edit.calls.Load() == 1
			if wantRan := strings.HasPrefix(tt.wantText, "ran"); ran != wantRan {
				t.Errorf("tool ran = %v, want %v", ran, wantRan)
			}
			if len(host.prompts) != tt.wantPrompts {
				t.Errorf("prompts = %d, want %d", len(host.prompts), tt.wantPrompts)
			}
		})
	}
}
