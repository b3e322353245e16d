package state

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/toolhost/toolhost/internal/pathutil"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/permission"
)

//go:embed exitplanmode.md
var exitPlanModeDescription string

// exitPlanModeSchema follows Claude Code's: allowedPrompts is optional and
// other properties are allowed. toolhost reads one more, "plan" (the plan
// inline, as earlier Claude Code versions sent it), declared so the schema
// says what the tool reads.
var exitPlanModeSchema = tools.SchemaVariantOf[exitPlanModeParams]("ExitPlanMode", func(s *jsonschema.Schema) {
	s.AdditionalProperties = &jsonschema.Schema{} // true: Claude Code's schema is open
})

type exitPlanModeParams struct {
	// Plan is the plan in markdown, when the model passes it inline.
	Plan string `json:"plan,omitempty" jsonschema:"The plan in markdown. Optional: without it the plan file (.toolhost/plan.md) is shown."`
	// AllowedPrompts is accepted for Claude Code's schema and ignored.
	AllowedPrompts []allowedPrompt `json:"allowedPrompts,omitempty" jsonschema:"Deprecated and ignored."`
}

// allowedPrompt is one entry of ExitPlanMode's deprecated allowedPrompts.
type allowedPrompt struct {
	Tool   string `json:"tool" schema:"enum=Bash"`
	Prompt string `json:"prompt"`
}

// ExitPlanModeOutput is the structured result, in Claude Code's shape.
type ExitPlanModeOutput struct {
	Plan          *string `json:"plan"`
	IsAgent       bool    `json:"isAgent"`
	FilePath      string  `json:"filePath,omitempty"`
	PlanWasEdited bool    `json:"planWasEdited,omitempty"`
}

// ExitPlanMode shows the plan to the user and, when they approve it, leaves
// plan mode.
type ExitPlanMode struct {
	modes tools.ModeController
	// root returns the first workspace root, which holds the plan file.
	root func() string
}

// NewExitPlanMode returns the ExitPlanMode tool switching modes.
func NewExitPlanMode(modes tools.ModeController, root func() string) *ExitPlanMode {
	return &ExitPlanMode{modes: modes, root: root}
}

func (*ExitPlanMode) Name() string                 { return "ExitPlanMode" }
func (*ExitPlanMode) Description() string          { return exitPlanModeDescription }
func (*ExitPlanMode) InputSchema() json.RawMessage { return exitPlanModeSchema.JSON() }

// SideEffect is state: it changes only the session's permission mode, and
// only with the user's approval, which it asks for itself.
func (*ExitPlanMode) SideEffect() tools.SideEffect { return tools.SideEffectState }

// Docs implements tools.Documented.
func (*ExitPlanMode) Docs() tools.Docs {
	return tools.Docs{
		Short: "Present the plan for approval and, when the user approves, leave plan mode.",
		Long: "Only valid in plan mode. The plan is the \"plan\" property of the input or, without it, the file " +
			permission.PlanFile + " in the first workspace root (plan mode allows writing that file). The user sees it " +
			"in a permission prompt: Allow switches to the default mode, Always allow to acceptEdits (edits inside the " +
			"workspace no longer ask); the client may instead answer updatedInput {\"mode\": ...} and an edited " +
			"{\"plan\": ...}. Deny keeps plan mode and returns the user's feedback.",
		Examples: []tools.Example{
			{Title: "Present the plan written to the plan file", Input: json.RawMessage(`{}`)},
			{Title: "Present a plan inline", Input: json.RawMessage(`{"plan":"1. Add the parser test\n2. Fix the off-by-one in lexer.go\n3. Run go test ./..."}`)},
		},
	}
}

// Execute asks the user to approve the plan.
func (t *ExitPlanMode) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var p exitPlanModeParams
	if err := json.Unmarshal(call.Input, &p); err != nil {
		return tools.ErrorResult("the input is not a valid ExitPlanMode input (%v); send {} after writing the plan to %s, or {\"plan\": \"...\"}.", err, permission.PlanFile), nil
	}
	if mode := t.modes.Mode(); mode != tools.ModePlan {
		return tools.ErrorResult("the session is not in plan mode (the permission mode is %s), so there is nothing to exit. Do not call ExitPlanMode; carry on with the task.", mode), nil
	}
	plan, filePath, err := t.plan(p)
	if err != nil {
		return nil, err
	}
	if plan == "" {
		return tools.ErrorResult("there is no plan to present: write it to %s (plan mode allows that file) or pass it as \"plan\", then call ExitPlanMode again.", permission.PlanFile), nil
	}

	host := call.Host
	if host == nil {
		host = tools.NoHost{}
	}
	resp, err := host.RequestPermission(ctx, tools.PermissionRequest{
		CallID:   call.ID,
		ToolName: t.Name(),
		Input:    call.Input,
		Title:    "Approve this plan and leave plan mode?",
		Risk:     tools.RiskMedium,
		Preview:  &tools.Preview{Kind: "command", Text: plan},
	})
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	switch {
	case errors.Is(err, tools.ErrCannotAsk):
		return tools.ErrorResult("this client cannot show the plan for approval, so the session stays in plan mode. Show the plan to the user in your reply and ask them to switch the permission mode (toolhost/setPermissionMode) once they approve it."), nil
	case errors.Is(err, tools.ErrDismissed):
		return tools.ErrorResult("the user closed the plan dialog without deciding, so the session stays in plan mode. Ask the user whether the plan is acceptable."), nil
	case err != nil:
		return nil, fmt.Errorf("ask the user to approve the plan: %w", err)
	}
	if !resp.Consented() {
		msg := "the user did not approve the plan, so the session stays in plan mode. Keep planning: revise the plan"
		if resp.Message != "" {
			msg += " according to the user's feedback: " + resp.Message
		} else {
			msg += ", or ask the user what should change"
		}
		return tools.ErrorResult("%s. Then call ExitPlanMode again.", msg), nil
	}

	mode := tools.ModeDefault
	if resp.Decision == tools.DecisionAllowAlways {
		mode = tools.ModeAcceptEdits
	}
	edited := false
	if upd := decodeUpdate(resp.UpdatedInput); upd != nil {
		if upd.Mode == tools.ModeDefault || upd.Mode == tools.ModeAcceptEdits {
			mode = upd.Mode
		}
		if s := strings.TrimSpace(upd.Plan); s != "" && s != plan {
			plan, edited = s, true
		}
	}
	if err := t.modes.SetMode(mode); err != nil {
		return nil, fmt.Errorf("leave plan mode: %w", err)
	}
	_ = host.Notify(ctx, MethodModeChanged, ModeChanged{Mode: mode, Previous: tools.ModePlan})
	text := fmt.Sprintf("The user approved the plan. The permission mode is now %s; start carrying out the plan, tracking the steps with TodoWrite.", mode)
	if edited {
		text += "\n\nThe user edited the plan; follow this version:\n\n" + plan
	}
	res := tools.TextResult(text)
	res.Structured = ExitPlanModeOutput{Plan: &plan, FilePath: filePath, PlanWasEdited: edited}
	return res, nil
}

// plan returns the plan text: inline, or the plan file's content.
func (t *ExitPlanMode) plan(p exitPlanModeParams) (plan, filePath string, err error) {
	if s := strings.TrimSpace(p.Plan); s != "" {
		return s, "", nil
	}
	path := filepath.Join(t.root(), filepath.FromSlash(permission.PlanFile))
	// Through the workspace's jail: a plan file that leads elsewhere
	// through a link is refused.
	b, err := pathutil.ReadFileIn(t.root(), filepath.FromSlash(permission.PlanFile), 16<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return "", "", nil
	}
	if err != nil {
		return "", "", fmt.Errorf("read the plan file: %w", err)
	}
	return strings.TrimSpace(string(b)), path, nil
}

// planUpdate is what a client may send back as updatedInput.
type planUpdate struct {
	Mode string `json:"mode"`
	Plan string `json:"plan"`
}

func decodeUpdate(v any) *planUpdate {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var u planUpdate
	if json.Unmarshal(b, &u) != nil {
		return nil
	}
	return &u
}
