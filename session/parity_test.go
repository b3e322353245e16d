package session

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/engine"
)

// promptHost allows every prompt and counts them.
type promptHost struct {
	tools.NoHost
	titles []string
}

func (h *promptHost) RequestPermission(_ context.Context, req tools.PermissionRequest) (tools.PermissionResponse, error) {
	h.titles = append(h.titles, req.ToolName+": "+req.Title)
	return tools.PermissionResponse{Decision: tools.DecisionAllow}, nil
}

// TestPlanModeToolsThroughThePipeline: through the session's pipeline the
// user is asked once to enter plan mode (not by the permission check and
// again by the tool), the session's mode becomes plan while the saved
// default stays, and ExitPlanMode brings the session back.
func TestPlanModeToolsThroughThePipeline(t *testing.T) {
	s, _ := newTestSession(t, "")
	h := &promptHost{}
	call := func(name, input string) *engine.Response {
		t.Helper()
		resp, err := s.Pipeline.Call(context.Background(), h, engine.Request{Name: name, Input: json.RawMessage(input)})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	if resp := call("EnterPlanMode", `{}`); resp.IsError || s.Permissions.Mode() != tools.ModePlan {
		t.Fatalf("EnterPlanMode: %q, mode %s", resp.Text(), s.Permissions.Mode())
	}
	if len(h.titles) != 1 || !strings.HasPrefix(h.titles[0], "EnterPlanMode: Enter plan mode?") {
		t.Errorf("prompts %q, want the one question of EnterPlanMode", h.titles)
	}
	if got := s.Settings.Current().Permissions.DefaultMode; got == tools.ModePlan {
		t.Errorf("the saved default became plan")
	}
	if resp := call("Write", `{"file_path":"x.txt","content":"x"}`); !resp.IsError {
		t.Errorf("a write ran in plan mode: %q", resp.Text())
	}
	if resp := call("ExitPlanMode", `{"plan":"1. do it"}`); resp.IsError || s.Permissions.Mode() != tools.ModeDefault {
		t.Errorf("ExitPlanMode: %q, mode %s", resp.Text(), s.Permissions.Mode())
	}
}
