package tools

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/toolhost/toolhost/workspace"
)

// Host is how a tool reaches the user. lspserver implements it for editors,
// the MCP server for MCP clients, the CLI for a terminal, and tests with
// scripted answers. Tools never import lspserver.
type Host interface {
	// Editor applies workspace edits (workspace/applyEdit). A host without an
	// editor reports CanApplyEdit() == false and the workspace writes files
	// itself, atomically.
	workspace.Editor

	// RequestPermission asks the user whether a call may run. A host that
	// cannot ask returns ErrCannotAsk; the pipeline then denies.
	RequestPermission(ctx context.Context, req PermissionRequest) (PermissionResponse, error)

	// AskUserQuestion asks the questions of the AskUserQuestion tool and
	// returns the answers keyed by question text (multi-select answers are
	// labels joined by ", "). A dismissed dialog returns ErrDismissed.
	// callID is the call asking, so that a client can close the dialog
	// when the call is cancelled.
	AskUserQuestion(ctx context.Context, callID string, questions []Question) (map[string]string, error)

	// BeginProgress starts a progress report for a call (window/workDoneProgress).
	// cancel is called when the user cancels it from the editor. The returned
	// Progress is never nil; End must be called once.
	BeginProgress(ctx context.Context, title string, cancel func()) ProgressEnder

	// Notify sends a notification to the client (toolhost/todos,
	// toolhost/taskChanged, toolhost/toolsChanged). Hosts that have no such
	// channel drop it.
	Notify(ctx context.Context, method string, params any) error
}

// AgentRunner is implemented by hosts whose client can run a sub-agent with
// its own model (toolhost/runAgent). It is optional: the Agent tool finds it
// by a type assertion on the call's Host and falls back to its built-in
// runner when the host lacks it or CanRunAgent is false.
type AgentRunner interface {
	// CanRunAgent reports whether the client declared that it runs agents.
	CanRunAgent() bool
	// RunAgent asks the client to run one sub-agent and returns its final
	// report. callID is the Agent call's id and input the Agent tool's
	// validated input. A failure the client reports comes back as a Result
	// with IsError; a Go error means the request itself failed.
	RunAgent(ctx context.Context, callID string, input json.RawMessage) (*Result, error)
}

// ErrCannotAsk means the host has no way to ask the user.
var ErrCannotAsk = errors.New("the client cannot show dialogs")

// ErrDismissed means the user closed a dialog without answering.
var ErrDismissed = errors.New("the user dismissed the dialog")

// PermissionRequest is the params of toolhost/requestPermission.
type PermissionRequest struct {
	CallID      string   `json:"callId"`
	ToolName    string   `json:"toolName"`
	Input       any      `json:"input"`
	Title       string   `json:"title"`
	Risk        Risk     `json:"risk"`
	Preview     *Preview `json:"preview,omitempty"`
	Suggestions []string `json:"suggestions,omitempty"`
	// BroaderSuggestions are wider rules the user may pick instead for
	// "Always allow" (a command's prefix, "Bash(npm run:*)"); Suggestions
	// are as narrow as the call.
	BroaderSuggestions []string `json:"broaderSuggestions,omitempty"`
}

// Permission decisions a user can give.
const (
	DecisionAllow       = "allow"
	DecisionAllowAlways = "allowAlways"
	DecisionDeny        = "deny"
)

// PermissionResponse is the answer to toolhost/requestPermission.
type PermissionResponse struct {
	Decision     string `json:"decision"`
	UpdatedInput any    `json:"updatedInput,omitempty"`
	Message      string `json:"message,omitempty"`
	// Rules, with allowAlways, are the rules the user picked to save in
	// place of the suggestions; only offered ones (suggestions or broader
	// suggestions) are kept.
	Rules []string `json:"rules,omitempty"`
}

// Consented reports whether the user allowed what they were asked: "allow"
// or "allowAlways". Every other answer, an unknown one included, is a
// refusal. It is the one reading of an answer to a permission prompt.
func (r PermissionResponse) Consented() bool {
	return r.Decision == DecisionAllow || r.Decision == DecisionAllowAlways
}

// Question is one question of AskUserQuestion, in Claude Code's shape.
type Question struct {
	Question    string           `json:"question" jsonschema:"The full question, ending with a question mark."`
	Header      string           `json:"header" jsonschema:"A very short tag for the question (at most 12 characters), e.g. \"Database\"." schema:"maxLength=12"`
	Options     []QuestionOption `json:"options" jsonschema:"2 to 4 distinct choices. Do not add an \"Other\" choice: the user can always type their own answer." schema:"minItems=2,maxItems=4"`
	MultiSelect bool             `json:"multiSelect" jsonschema:"true lets the user pick several choices."`
}

// QuestionOption is one choice of a Question.
type QuestionOption struct {
	Label       string `json:"label" jsonschema:"The choice as the user sees it, a few words."`
	Description string `json:"description" jsonschema:"What choosing it means: trade-offs, consequences."`
	// Preview is optional content (a mockup, a code snippet) a client may
	// show while the option is focused.
	Preview string `json:"preview,omitempty" jsonschema:"Optional content shown while the choice is focused: a mockup, a code snippet."`
}

// Progress reports intermediate status of a running call.
type Progress interface {
	// Report sends a message (e.g. the tail of a command's output). Hosts
	// rate-limit as they see fit; Report never blocks for long.
	Report(message string)
}

// ProgressEnder is a Progress that is ended once the call returns.
type ProgressEnder interface {
	Progress
	End(message string)
}

// NoProgress discards reports.
type NoProgress struct{}

func (NoProgress) Report(string) {}
func (NoProgress) End(string)    {}

// NoHost is a Host with no user behind it: edits go to disk, prompts cannot
// be asked, notifications are dropped. The CLI and tests start from it.
type NoHost struct{}

func (NoHost) CanApplyEdit() bool      { return false }
func (NoHost) SavesAppliedEdits() bool { return false }
func (NoHost) ApplyEdit(context.Context, *workspace.ApplyWorkspaceEditParams) (*workspace.ApplyWorkspaceEditResult, error) {
	return nil, workspace.ErrNoEditor
}
func (NoHost) RequestPermission(context.Context, PermissionRequest) (PermissionResponse, error) {
	return PermissionResponse{}, ErrCannotAsk
}
func (NoHost) AskUserQuestion(context.Context, string, []Question) (map[string]string, error) {
	return nil, ErrCannotAsk
}
func (NoHost) BeginProgress(context.Context, string, func()) ProgressEnder { return NoProgress{} }
func (NoHost) Notify(context.Context, string, any) error                   { return nil }
