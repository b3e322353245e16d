package state

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/tools"
)

// notifyingHost records notifications besides permission prompts.
type notifyingHost struct {
	recordingPermissionHost
	notes []ModeChanged
}

func (h *notifyingHost) Notify(_ context.Context, method string, params any) error {
	if method == MethodModeChanged {
		h.notes = append(h.notes, params.(ModeChanged))
	}
	return nil
}

// TestEnterPlanMode states Claude Code's EnterPlanMode: it asks the user,
// and on approval switches the session (not the saved default) to plan mode.
func TestEnterPlanMode(t *testing.T) {
	tests := []struct {
		name      string
		startMode string
		resp      tools.PermissionResponse
		askErr    error
		wantMode  string
		wantErr   string
		wantText  string
		asks      int
	}{
		{name: "approved", startMode: tools.ModeDefault, resp: tools.PermissionResponse{Decision: tools.DecisionAllow},
			wantMode: tools.ModePlan, wantText: "Entered plan mode", asks: 1},
		{name: "declined", startMode: tools.ModeAcceptEdits, resp: tools.PermissionResponse{Decision: tools.DecisionDeny, Message: "just do it"},
			wantMode: tools.ModeAcceptEdits, wantErr: "declined to enter plan mode. Carry on with the task without it; the user said: just do it", asks: 1},
		{name: "dismissed", startMode: tools.ModeDefault, askErr: tools.ErrDismissed,
			wantMode: tools.ModeDefault, wantErr: "without entering plan mode", asks: 1},
		{name: "a client without dialogs gets plan mode", startMode: tools.ModeDefault, askErr: tools.ErrCannotAsk,
			wantMode: tools.ModePlan, wantText: "Entered plan mode", asks: 1},
		{name: "already in plan mode", startMode: tools.ModePlan, wantMode: tools.ModePlan, wantText: "already in plan mode"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newConfigEnv(t, `{"permissions":{"defaultMode":"acceptEdits"}}`)
			if err := e.checker.SetMode(tc.startMode); err != nil {
				t.Fatal(err)
			}
			host := &notifyingHost{recordingPermissionHost: recordingPermissionHost{resp: tc.resp, err: tc.askErr}}
			res, err := NewEnterPlanMode(e.checker).Execute(context.Background(), &tools.Call{ID: "c", Input: json.RawMessage(`{}`), Host: host, Progress: tools.NoProgress{}})
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantErr != "" {
				if !res.IsError || !strings.Contains(res.Text(), tc.wantErr) {
					t.Errorf("got %q, want an error with %q", res.Text(), tc.wantErr)
				}
			} else if res.IsError || !strings.Contains(res.Text(), tc.wantText) || !strings.Contains(res.Text(), "ExitPlanMode") {
				t.Errorf("got %q, want %q and how to go on", res.Text(), tc.wantText)
			}
			if e.checker.Mode() != tc.wantMode {
				t.Errorf("mode = %s, want %s", e.checker.Mode(), tc.wantMode)
			}
			if len(host.requests) != tc.asks {
				t.Errorf("%d prompts, want %d", len(host.requests), tc.asks)
			}
			entered := tc.startMode != tools.ModePlan && tc.wantMode == tools.ModePlan
			if entered != (len(host.notes) == 1) || entered && host.notes[0] != (ModeChanged{Mode: tools.ModePlan, Previous: tc.startMode}) {
				t.Errorf("notifications %+v", host.notes)
			}
			// The saved default is never touched.
			if got := e.store.Current().Permissions.DefaultMode; got != "acceptEdits" {
				t.Errorf("saved default = %q, want it unchanged", got)
			}
		})
	}
}

// TestPlanModeRoundTripKeepsSavedDefault: after EnterPlanMode and an
// approved ExitPlanMode, Config reports the saved default and the session's
// mode apart, and the saved default is what it was.
func TestPlanModeRoundTripKeepsSavedDefault(t *testing.T) {
	e := newConfigEnv(t, "")
	host := &notifyingHost{recordingPermissionHost: recordingPermissionHost{resp: tools.PermissionResponse{Decision: tools.DecisionAllow}}}
	call := func(tool tools.Tool, input string) *tools.Result {
		res, err := tool.Execute(context.Background(), &tools.Call{ID: "c", Input: json.RawMessage(input), Host: host, Progress: tools.NoProgress{}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	call(NewEnterPlanMode(e.checker), `{}`)
	res := call(e.tool, `{"setting":"permissions.defaultMode"}`)
	if !strings.Contains(res.Text(), `permissions.defaultMode = "default" (the saved default`) || !strings.Contains(res.Text(), "This session's permission mode is plan") {
		t.Errorf("Config in plan mode: %q", res.Text())
	}
	call(NewExitPlanMode(e.checker, func() string { return e.root }), `{"plan":"do it"}`)
	if e.checker.Mode() != tools.ModeDefault || e.store.Current().Permissions.DefaultMode != "" && e.store.Current().Permissions.DefaultMode != tools.ModeDefault {
		t.Errorf("after ExitPlanMode: mode %s, saved %q", e.checker.Mode(), e.store.Current().Permissions.DefaultMode)
	}
	if len(host.notes) != 2 || host.notes[1].Mode != tools.ModeDefault {
		t.Errorf("notifications %+v", host.notes)
	}
}
