package tools

import (
	"context"
	"encoding/json"
)

// PermissionChecker decides whether a call may run: mode, rules, risk, and a
// prompt through the host when the answer is "ask". tools/permission
// implements it; the pipeline calls it after validation and before hooks.
type PermissionChecker interface {
	Check(ctx context.Context, host Host, call PermissionCall) (PermissionOutcome, error)
}

// PermissionCall is what a permission decision is made on.
type PermissionCall struct {
	CallID string
	Tool   Tool
	Input  json.RawMessage
	Access Access
	Risk   Risk
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
