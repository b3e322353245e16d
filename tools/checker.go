package tools

import (
	"context"
	"encoding/json"

	"github.com/toolhost/toolhost/workspace"
)

// PermissionChecker decides whether a call may run: mode, rules, risk, and a
// prompt through the host when the answer is "ask". tools/permission
// implements it; the pipeline calls it after validation and before hooks.
type PermissionChecker interface {
	// Decide is the decision on call without asking anybody: allow, ask
	// or deny, and why. host is consulted only for what it can show
	// (CanApplyEdit, for edits reviewed in the editor); nil is NoHost.
	Decide(host Host, call PermissionCall) PermissionDecision
	// Check is Decide followed, when the answer is "ask", by a prompt
	// through host.
	Check(ctx context.Context, host Host, call PermissionCall) (PermissionOutcome, error)
}

// PermissionPrompter is implemented by checkers that can tell, without
// asking, the prompt Check shows for a call whose decision is "ask": a
// client that confirms calls in its own UI (VS Code's agent mode, through
// toolhost/checkPermission) shows toolhost's title, preview and risk.
type PermissionPrompter interface {
	Prompt(ctx context.Context, host Host, call PermissionCall) PermissionRequest
}

// PermissionCall is what a permission decision is made on.
type PermissionCall struct {
	CallID string
	Tool   Tool
	Input  json.RawMessage
	Access Access
	Risk   Risk
	// HookAsk marks the prompt of a call a PreToolUse hook wants the user
	// to confirm; HookReason is the hook's reason. The prompt names the
	// hook and offers no rules to save.
	HookAsk    bool
	HookReason string
	// Plan is the call's prepared plan when its tool is a Planner (nil
	// otherwise): the prompt's preview comes from it (PreviewOf).
	Plan Plan
}

// PreviewOf is the preview of call for its prompt: its plan's when it has
// one, so the prompt shows what Execute will apply without working the
// call out again, else the tool's Previewer's; nil for none.
func PreviewOf(ctx context.Context, call PermissionCall) *Preview {
	if call.Plan != nil {
		return call.Plan.Preview(ctx)
	}
	if pv, ok := call.Tool.(Previewer); ok {
		return pv.Preview(ctx, call.Input)
	}
	return nil
}

// Verdict is the answer of the permission rules to one call.
type Verdict string

// The verdicts of a PermissionDecision (toolhost/checkPermission's decision).
const (
	VerdictAllow Verdict = "allow"
	VerdictAsk   Verdict = "ask"
	VerdictDeny  Verdict = "deny"
)

// PermissionDecision is what the rules say about a call before anybody is
// asked.
type PermissionDecision struct {
	Verdict Verdict `json:"decision"`
	// Reason says why: for a denial, the message for the model (what to
	// do next, without "Error: "); for "ask", why the user is asked (e.g.
	// "no rule allows it"); for "allow", what allowed it.
	Reason string `json:"reason,omitempty"`
	// Review means the call is allowed because the editor shows its edits
	// for confirmation (edit.reviewInEditor) instead of a dialog.
	Review bool `json:"review,omitempty"`
	// ApprovedReads are, unless the call is denied, the approvals its
	// reads outside the workspace get when it is allowed or the user
	// agrees: by the real paths they lead to now (PermissionOutcome's).
	ApprovedReads []workspace.ApprovedRead `json:"-"`
}

// PermissionOutcome is the decision. A denial's Message is shown to the model
// and says what to do next.
type PermissionOutcome struct {
	Allow        bool
	Message      string
	UpdatedInput json.RawMessage
	// Review asks for the call's edits to be confirmed in the editor
	// (workspace/applyEdit with needsConfirmation) instead of a dialog.
	Review bool
	// ApprovedReads, with Allow, approve the call's reads outside the
	// workspace by where they lead when decided (Call.ApprovedReads).
	ApprovedReads []workspace.ApprovedRead
}

// Permission modes (design.md section 4).
const (
	ModeDefault           = "default"
	ModeAcceptEdits       = "acceptEdits"
	ModePlan              = "plan"
	ModeBypassPermissions = "bypassPermissions"
	ModeDontAsk           = "dontAsk"
)

// ModeController reads and changes the session's permission mode
// (toolhost/setPermissionMode, ExitPlanMode).
type ModeController interface {
	Mode() string
	SetMode(mode string) error
}
