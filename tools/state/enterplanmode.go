package state

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/permission"
)

//go:embed enterplanmode.md
var enterPlanModeDescription string

// enterPlanModeSchema is Claude Code's: no input.
var enterPlanModeSchema = tools.SchemaOf[struct{}](nil)

// EnterPlanModeOutput is the structured result, in Claude Code's shape.
type EnterPlanModeOutput struct {
	Message string `json:"message"`
}

// MethodModeChanged is the notification that tells the client the
// session's permission mode changed (EnterPlanMode, ExitPlanMode).
const MethodModeChanged = "toolhost/modeChanged"

// ModeChanged is the params of toolhost/modeChanged.
type ModeChanged struct {
	Mode     string `json:"mode"`
	Previous string `json:"previous"`
}

// EnterPlanMode asks the user to switch the session to plan mode. It
// changes the session's mode only, never the saved default
// (permissions.defaultMode), so the next session starts as configured and
// Config keeps reporting the saved default.
type EnterPlanMode struct {
	modes tools.ModeController
}

// NewEnterPlanMode returns the EnterPlanMode tool switching modes.
func NewEnterPlanMode(modes tools.ModeController) *EnterPlanMode {
	return &EnterPlanMode{modes: modes}
}

func (*EnterPlanMode) Name() string                 { return "EnterPlanMode" }
func (*EnterPlanMode) Description() string          { return enterPlanModeDescription }
func (*EnterPlanMode) InputSchema() json.RawMessage { return enterPlanModeSchema.JSON() }

// SideEffect is state: it changes only the session's permission mode, to a
// stricter one, after asking the user itself.
func (*EnterPlanMode) SideEffect() tools.SideEffect { return tools.SideEffectState }

// Docs implements tools.Documented.
func (*EnterPlanMode) Docs() tools.Docs {
	return tools.Docs{
		Short: "Ask the user to switch this session to plan mode (read-only exploration, then ExitPlanMode).",
		Long: "The user is asked in a permission prompt; on Allow the session's permission mode becomes plan, " +
			"for this session only: permissions.defaultMode in the settings is not changed. A client that cannot " +
			"show dialogs gets plan mode without a prompt, since plan mode only restricts. In plan mode only " +
			"read-only tools run, and writing " + permission.PlanFile + "; ExitPlanMode presents the plan and " +
			"leaves it. The client is told with a " + MethodModeChanged + " notification.",
		Examples: []tools.Example{{Title: "Plan before a larger change", Input: json.RawMessage(`{}`)}},
	}
}

// Execute asks the user and enters plan mode.
func (t *EnterPlanMode) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	previous := t.modes.Mode()
	if previous == tools.ModePlan {
		return planEntered("The session is already in plan mode."), nil
	}
	host := call.Host
	if host == nil {
		host = tools.NoHost{}
	}
	resp, err := host.RequestPermission(ctx, tools.PermissionRequest{
		CallID: call.ID, ToolName: t.Name(), Input: call.Input, Risk: tools.RiskLow,
		Title: "Enter plan mode? The agent explores and designs an approach, changing nothing until you approve its plan.",
	})
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	switch {
	case errors.Is(err, tools.ErrCannotAsk):
		// Plan mode only takes permissions away: safe without a prompt.
	case errors.Is(err, tools.ErrDismissed):
		return tools.ErrorResult("the user closed the dialog without entering plan mode. Carry on with the task without plan mode, or ask the user how to proceed."), nil
	case err != nil:
		return nil, fmt.Errorf("ask the user to enter plan mode: %w", err)
	case resp.Decision != tools.DecisionAllow && resp.Decision != tools.DecisionAllowAlways:
		msg := "the user declined to enter plan mode. Carry on with the task without it"
		if resp.Message != "" {
			msg += "; the user said: " + resp.Message
		}
		return tools.ErrorResult("%s.", msg), nil
	}
	if err := t.modes.SetMode(tools.ModePlan); err != nil {
		return nil, fmt.Errorf("enter plan mode: %w", err)
	}
	// The editor shows the mode; a client that does not know the
	// notification ignores it.
	_ = host.Notify(ctx, MethodModeChanged, ModeChanged{Mode: tools.ModePlan, Previous: previous})
	return planEntered("Entered plan mode (for this session; the saved default mode is unchanged)."), nil
}

// planEntered is the result once the session is in plan mode.
func planEntered(lead string) *tools.Result {
	res := tools.TextResult(lead + " Now explore the codebase and design an implementation approach:\n" +
		"1. Read the relevant code and find the patterns and similar features already there.\n" +
		"2. Weigh the possible approaches and their trade-offs; ask the user with AskUserQuestion where the choice is theirs.\n" +
		"3. Write a concrete plan to " + permission.PlanFile + " (the one file plan mode lets you write).\n" +
		"4. Present it with ExitPlanMode for approval. Until then, do not edit files or run commands that change anything: they are refused.")
	res.Structured = EnterPlanModeOutput{Message: lead}
	return res
}
