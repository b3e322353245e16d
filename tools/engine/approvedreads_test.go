package engine

import (
	"context"
	"encoding/json"
	"github.com/toolhost/toolhost/tools"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/workspace"
)

// approvingChecker allows every call with an approval of each path it
// reads; its first answer may carry an input the user edited.
type approvingChecker struct {
	mu      sync.Mutex
	checks  int
	updated json.RawMessage
}

func (c *approvingChecker) Decide(tools.Host, tools.PermissionCall) tools.PermissionDecision {
	return tools.PermissionDecision{Verdict: tools.VerdictAllow}
}

func (c *approvingChecker) Check(_ context.Context, _ tools.Host, call tools.PermissionCall) (tools.PermissionOutcome, error) {
	c.mu.Lock()
	c.checks++
	first := c.checks == 1
	c.mu.Unlock()
	out := tools.PermissionOutcome{Allow: true}
	for _, p := range call.Access.ReadPaths {
		out.ApprovedReads = append(out.ApprovedReads, workspace.ApprovedRead{Path: p, Real: "/real" + p})
	}
	if first {
		out.UpdatedInput = c.updated
	}
	return out, nil
}

// The checker's approvals of reads reach the tool's call, and they are
// those of the input the call runs with: after the user or a hook rewrote
// it, the approvals of the check of the new input, never the old ones.
func TestApprovedReadsReachTheCall(t *testing.T) {
	tests := []struct {
		name, updated, hook string
		want                string
	}{
		{name: "as checked", want: "/ws/a.txt->/real/ws/a.txt"},
		{name: "user edit", updated: `{"path":"/ws/b.txt"}`, want: "/ws/b.txt->/real/ws/b.txt"},
		{name: "hook rewrite", hook: `echo '{"suppressOutput":true,"hookSpecificOutput":{"updatedInput":{"path":"/ws/c.txt"}}}'`, want: "/ws/c.txt->/real/ws/c.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			read := &accessTool{
				fakeTool: &fakeTool{name: "Read", schema: `{"type":"object","properties":{"path":{"type":"string"}}}`,
					run: func(_ context.Context, call *tools.Call) (*tools.Result, error) {
						var got []string
						for _, a := range call.ApprovedReads {
							got = append(got, a.Path+"->"+a.Real)
						}
						return tools.TextResult(strings.Join(got, ",")), nil
					}},
				access: pathAccess(false),
			}
			reg := tools.NewRegistry()
			reg.Register(tools.CategoryCore, read)
			p := NewPipeline(reg, nil)
			if tt.hook != "" {
				p = hookedPipeline(t, reg, "PreToolUse", tt.hook, 0)
			}
			p.Permissions = &approvingChecker{updated: json.RawMessage(tt.updated)}
			resp := call(t, p, newRecordingHost(), "Read", `{"path":"/ws/a.txt"}`)
			if resp.IsError || resp.Text() != tt.want {
				t.Errorf("the tool saw the approvals %q, want %q", resp.Text(), tt.want)
			}
		})
	}
}
