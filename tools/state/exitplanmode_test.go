package state

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/permission"
)

func TestExitPlanMode(t *testing.T) {
	tests := []struct {
		name      string
		startMode string
		planFile  string // written to the plan file when set
		input     string
		resp      tools.PermissionResponse
		askErr    error
		wantMode  string
		wantErr   string // substring of an error result
		wantText  string
		wantPlan  string // the plan shown in the prompt
	}{
		{
			name: "approved from the plan file", startMode: tools.ModePlan, planFile: "1. fix it\n", input: `{}`,
			resp: tools.PermissionResponse{Decision: tools.DecisionAllow}, wantMode: tools.ModeDefault,
			wantText: "approved the plan. The permission mode is now default", wantPlan: "1. fix it",
		},
		{
			name: "inline plan wins over the file", startMode: tools.ModePlan, planFile: "old plan", input: `{"plan":"new plan"}`,
			resp: tools.PermissionResponse{Decision: tools.DecisionAllow}, wantMode: tools.ModeDefault, wantPlan: "new plan",
		},
		{
			name: "always allow means acceptEdits", startMode: tools.ModePlan, input: `{"plan":"p"}`,
			resp: tools.PermissionResponse{Decision: tools.DecisionAllowAlways}, wantMode: tools.ModeAcceptEdits,
			wantText: "now acceptEdits", wantPlan: "p",
		},
		{
			name: "answer chooses the mode and edits the plan", startMode: tools.ModePlan, input: `{"plan":"p"}`,
			resp:     tools.PermissionResponse{Decision: tools.DecisionAllow, UpdatedInput: map[string]any{"mode": "acceptEdits", "plan": "p, but test first"}},
			wantMode: tools.ModeAcceptEdits, wantText: "follow this version:\n\np, but test first", wantPlan: "p",
		},
		{
			name: "answer cannot pick bypass", startMode: tools.ModePlan, input: `{"plan":"p"}`,
			resp:     tools.PermissionResponse{Decision: tools.DecisionAllow, UpdatedInput: map[string]any{"mode": "bypassPermissions"}},
			wantMode: tools.ModeDefault, wantPlan: "p",
		},
		{
			name: "denied keeps planning", startMode: tools.ModePlan, input: `{"plan":"p"}`,
			resp:     tools.PermissionResponse{Decision: tools.DecisionDeny, Message: "split step 2"},
			wantMode: tools.ModePlan, wantErr: "stays in plan mode. Keep planning: revise the plan according to the user's feedback: split step 2", wantPlan: "p",
		},
		{
			name: "client cannot ask", startMode: tools.ModePlan, input: `{"plan":"p"}`, askErr: tools.ErrCannotAsk,
			wantMode: tools.ModePlan, wantErr: "cannot show the plan", wantPlan: "p",
		},
		{
			name: "dismissed", startMode: tools.ModePlan, input: `{"plan":"p"}`, askErr: tools.ErrDismissed,
			wantMode: tools.ModePlan, wantErr: "without deciding", wantPlan: "p",
		},
		{
			name: "no plan", startMode: tools.ModePlan, input: `{}`,
			wantMode: tools.ModePlan, wantErr: "no plan to present",
		},
		{
			name: "outside plan mode", startMode: tools.ModeAcceptEdits, input: `{"plan":"p"}`,
			wantMode: tools.ModeAcceptEdits, wantErr: "not in plan mode (the permission mode is acceptEdits)",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newConfigEnv(t, "")
			if err := e.checker.SetMode(tc.startMode); err != nil {
				t.Fatal(err)
			}
			if tc.planFile != "" {
				if err := os.WriteFile(filepath.Join(e.root, filepath.FromSlash(permission.PlanFile)), []byte(tc.planFile), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			tool := NewExitPlanMode(e.checker, func() string { return e.root })
			host := &recordingPermissionHost{resp: tc.resp, err: tc.askErr}
			res, err := tool.Execute(context.Background(), &tools.Call{ID: "plan-1", Input: json.RawMessage(tc.input), Host: host, Progress: tools.NoProgress{}})
			if err != nil {
				t.Fatalf("Execute: %v", err)
			}
			if tc.wantErr != "" {
				if !res.IsError || !strings.Contains(res.Text(), tc.wantErr) {
					t.Errorf("got %q, want an error with %q", res.Text(), tc.wantErr)
				}
			} else if res.IsError || !strings.Contains(res.Text(), tc.wantText) {
				t.Errorf("got %q, want a result with %q", res.Text(), tc.wantText)
			}
			if e.checker.Mode() != tc.wantMode {
				t.Errorf("mode = %s, want %s", e.checker.Mode(), tc.wantMode)
			}
			if tc.wantPlan == "" {
				if len(host.requests) != 0 {
					t.Errorf("asked the user although there was nothing to approve")
				}
				return
			}
			if len(host.requests) != 1 {
				t.Fatalf("%d prompts, want 1", len(host.requests))
			}
			req := host.requests[0]
			if req.CallID != "plan-1" || req.ToolName != "ExitPlanMode" || req.Preview == nil || req.Preview.Text != tc.wantPlan {
				t.Errorf("request %+v preview %+v, want the plan %q", req, req.Preview, tc.wantPlan)
			}
		})
	}
}

// In plan mode the model can write the plan file and call ExitPlanMode
// without prompts, but cannot edit anything else.
func TestPlanModeAllowsPlanFileAndExitPlanMode(t *testing.T) {
	e := newConfigEnv(t, "")
	if err := e.checker.SetMode(tools.ModePlan); err != nil {
		t.Fatal(err)
	}
	host := &recordingPermissionHost{}
	write := planWriteTool{}
	check := func(tool tools.Tool, access tools.Access) tools.PermissionOutcome {
		out, err := e.checker.Check(context.Background(), host, tools.PermissionCall{Tool: tool, Input: json.RawMessage(`{}`), Access: access})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if out := check(write, tools.Access{WritePaths: []string{permission.PlanFile}}); !out.Allow {
		t.Errorf("writing the plan file in plan mode: %q", out.Message)
	}
	if out := check(write, tools.Access{WritePaths: []string{"main.go"}}); out.Allow || !strings.Contains(out.Message, "ExitPlanMode") {
		t.Errorf("writing main.go in plan mode: %+v", out)
	}
	if out := check(NewExitPlanMode(e.checker, func() string { return e.root }), tools.Access{}); !out.Allow {
		t.Errorf("ExitPlanMode itself was not allowed in plan mode: %q", out.Message)
	}
	if len(host.requests) != 0 {
		t.Errorf("%d prompts, want none", len(host.requests))
	}
}

// planWriteTool stands in for Write in permission checks.
type planWriteTool struct{}

func (planWriteTool) Name() string                 { return "Write" }
func (planWriteTool) Description() string          { return "" }
func (planWriteTool) InputSchema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (planWriteTool) SideEffect() tools.SideEffect { return tools.SideEffectMutating }
func (planWriteTool) Execute(context.Context, *tools.Call) (*tools.Result, error) {
	return tools.TextResult(""), nil
}
