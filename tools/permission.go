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

// Permission decisions of a check that runs nothing (toolhost/checkPermission).
const (
	PermissionAllow = "allow"
	PermissionAsk   = "ask"
	PermissionDeny  = "deny"
)

// PermissionDecision is what the checker would decide on a call, without
// asking anyone and without running it.
type PermissionDecision struct {
	// Decision is PermissionAllow, PermissionAsk or PermissionDeny.
	Decision string `json:"decision"`
	// Reason says why: the refusal the model would get for a denial, what
	// makes the call need asking for "ask".
	Reason string `json:"reason,omitempty"`
	// Request is the prompt the user would see for "ask": its title,
	// preview (a diff, a command) and the rules an "Always allow" adds.
	Request *PermissionRequest `json:"request,omitempty"`
}

// PermissionDecider is implemented by permission checkers that can answer
// what they would decide without prompting (tools/permission's Checker).
type PermissionDecider interface {
	Decide(ctx context.Context, call PermissionCall) (PermissionDecision, error)
}
