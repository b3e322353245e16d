// Package tools is the kernel a tool author needs: the Tool interface every
// toolhost tool implements and its optional capabilities (Planner,
// Prechecker, Previewer, AccessDescriber, ...), the Call, Result and Host
// a call sees, the permission checker's types, schemas from params structs
// (SchemaOf) and the Registry that names and lists tools. What runs calls
// — validation, repair, permissions, hooks, progress, batching — is the
// engine (tools/engine); tools link the kernel without it. Built-in tools
// live in sub-packages by family (tools/fs, tools/search, tools/shell, ...)
// and are registered together by tools/builtin.
package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolhost/toolhost/workspace"
)

// SideEffect says what a tool does to the world. It drives the default risk,
// plan-mode refusals and MCP annotations.
type SideEffect string

const (
	// SideEffectNone: reads only (Read, Glob, Grep).
	SideEffectNone SideEffect = "none"
	// SideEffectMutating: changes files in the workspace (Write, Edit).
	SideEffectMutating SideEffect = "mutating"
	// SideEffectNetwork: runs commands or talks to the network (Bash, WebFetch).
	SideEffectNetwork SideEffect = "network"
	// SideEffectSpawns: starts agents or processes that act on their own.
	SideEffectSpawns SideEffect = "spawns"
	// SideEffectBlocking: waits on something else without changing it (TaskOutput).
	SideEffectBlocking SideEffect = "blocking"
	// SideEffectState: changes only toolhost's own session state (TodoWrite).
	SideEffectState SideEffect = "state"
)

// Risk is how much a call can hurt; it decides whether a prompt is needed.
type Risk string

const (
	RiskLow      Risk = "low"
	RiskMedium   Risk = "medium"
	RiskHigh     Risk = "high"
	RiskCritical Risk = "critical"
)

// DefaultRisk is the risk of a side effect when the tool does not say more.
func DefaultRisk(s SideEffect) Risk {
	switch s {
	case SideEffectNone, SideEffectState, SideEffectBlocking:
		return RiskLow
	case SideEffectMutating:
		return RiskMedium
	default:
		return RiskHigh
	}
}

// Tool is one callable tool. Implementations are safe for concurrent use:
// per-call state lives in the Call, long-lived dependencies are given to the
// constructor.
type Tool interface {
	// Name is the tool's canonical name, e.g. "Read".
	Name() string
	// Description is the text shown to the model.
	Description() string
	// InputSchema is the JSON Schema (draft 2020-12 compatible, type object)
	// of the input. The pipeline validates input against it before Execute.
	InputSchema() json.RawMessage
	// SideEffect classifies the tool for permissions and annotations.
	SideEffect() SideEffect
	// Execute runs one call. Errors the model can fix are returned as a
	// Result with IsError set (see ErrorResult); a Go error means an
	// infrastructure failure and is turned into an error result by the
	// pipeline. Execute must return promptly once ctx is done.
	Execute(ctx context.Context, call *Call) (*Result, error)
}

// Call is one invocation of a tool.
type Call struct {
	// ID identifies the call (the model's tool_use id when given).
	ID string
	// Name is the name the caller used (may be an alias).
	Name string
	// Input is the validated JSON input.
	Input json.RawMessage
	// Host reaches the user: edits, dialogs, notifications. Never nil when
	// the pipeline runs the call (NoHost stands in where there is no user).
	Host Host
	// Progress reports intermediate status of this call. Never nil when the
	// pipeline runs the call.
	Progress Progress
	// ReviewEdits asks for the call's file changes to be shown in the
	// editor for confirmation (workspace/applyEdit with needsConfirmation):
	// the permission checker allowed the call because the editor's review
	// is the prompt (edit.reviewInEditor).
	ReviewEdits bool
	// Accepted, when not nil, is the whole content the user accepted in a
	// review of the turn's changes (toolhost/reviewChanges) for the
	// prepared Plan: the tool writes exactly it, without a second
	// confirmation, as long as the file is still what the plan was
	// prepared on (the usual stale error otherwise).
	Accepted []byte
	// ApprovedReads are the permission checker's approvals of the call's
	// reads outside the workspace (a link inside it pointing outside
	// included), each by the real path the user was asked about or a rule
	// named. A tool reads such a path only under them
	// (workspace.WithApprovedReads), so what it opens is what was approved.
	ApprovedReads []workspace.ApprovedRead
	// Plan is what the tool's Decode returned for Input, prepared, when
	// the tool is a Planner and the pipeline ran it; nil otherwise (a
	// direct Execute, or input a hook or the user changed): the tool then
	// decodes Input itself.
	Plan Plan
}

// StrictInput is implemented by tools whose unknown input fields must not
// be dropped by the engine's repair of input: a field that only some configurations accept
// (SendMessage's type without tools.teams) would change what the call
// means, so the call is refused as sent instead.
type StrictInput interface {
	StrictInput() bool
}

// HostBound is implemented by tools that only some hosts can serve: the
// editor's language tools need a client that answers them. Whether a tool
// is servable here is decided by this alone (see Unservable), and every
// place that offers tools asks it: toolhost/listTools, MCP's tools/list,
// ToolSearch, a sub-agent's tools, and the pipeline before a call runs.
type HostBound interface {
	// Unservable says why h cannot serve the tool, as the error a call of
	// it answers with (what to do instead included); "" when h can.
	Unservable(h Host) string
}

// Unservable is why h cannot serve t ("" when it can, as for every tool
// that is not HostBound). A nil h is NoHost.
func Unservable(t Tool, h Host) string {
	b, ok := t.(HostBound)
	if !ok {
		return ""
	}
	if h == nil {
		h = NoHost{}
	}
	return b.Unservable(h)
}

// Planner is implemented by tools that decode a call's input once and
// work the call out once (Edit, Write, NotebookEdit): the pipeline hands
// the same Plan to the batch scheduler and the permission checker
// (Access), the check before the prompt (Prepare), the prompt's preview
// and Execute (Call.Plan). It replaces AccessDescriber, Prechecker and
// Previewer for the pipeline; a Planner keeps those only for callers that
// hold raw input.
type Planner interface {
	// Decode decodes validated input into the call's plan, reading
	// nothing else; a non-nil Result ends the call.
	Decode(input json.RawMessage) (Plan, *Result)
}

// Plan is one call of a Planner: its input, decoded, and once prepared
// what it will do.
type Plan interface {
	// Access is what the call touches, with paths as given (as
	// AccessDescriber's).
	Access() Access
	// Prepare works the call out against the files as they are now. It
	// runs at most once per call, before the permission prompt; a non-nil
	// Result ends the call before the user is asked (as Prechecker's).
	// What it worked out is what Execute applies unless the file changes
	// under it meanwhile.
	Prepare(ctx context.Context, host Host) *Result
	// Preview is the prompt's preview of the prepared call; nil when
	// there is none or Prepare failed.
	Preview(ctx context.Context) *Preview
}

// Documented is implemented by tools that carry reference documentation
// beyond their description (used by `toolhost tools docs` and listTools).
type Documented interface {
	Docs() Docs
}

// Docs is the reference documentation of a tool.
type Docs struct {
	Short    string    `json:"short"`
	Long     string    `json:"long,omitempty"`
	Examples []Example `json:"examples,omitempty"`
}

// Example is one documented call of a tool.
type Example struct {
	Title string          `json:"title"`
	Input json.RawMessage `json:"input"`
}

// Access describes what one call will touch. The pipeline uses it for
// permission rules (paths, command, domain) and the batch scheduler for
// conflicts (paths, exclusive categories).
type Access struct {
	// ReadPaths and WritePaths are as given in the input (absolute or
	// relative to the first root); the pipeline resolves them.
	ReadPaths  []string
	WritePaths []string
	// Command is the shell command of a Bash-like call, matched by Bash(...) rules.
	Command string
	// Dir is the absolute folder Command starts in when it is not the first
	// root (Bash keeps the folder a cd led to between calls): the command's
	// relative paths are judged there.
	Dir string
	// Domain is the host a network call reaches, matched by WebFetch(domain:...) rules.
	Domain string
	// Exclusive names categories of which only one call runs at a time in a
	// batch, in the order given (e.g. "shell").
	Exclusive []string
}

// AccessDescriber is implemented by tools whose calls touch paths, run
// commands or reach hosts. Input is the raw (already validated) input; an
// input it cannot parse yields an empty Access.
type AccessDescriber interface {
	Access(input json.RawMessage) Access
}

// RiskAssessor is implemented by tools whose risk depends on more than the
// side effect (MCP tools with annotations, Bash with a read-only command).
type RiskAssessor interface {
	Risk(input json.RawMessage) Risk
}

// Previewer is implemented by tools that can show the user what a call will
// do before it runs (the diff of an edit, the command of a Bash call).
type Previewer interface {
	Preview(ctx context.Context, input json.RawMessage) *Preview
}

// Preview is shown in a permission prompt.
type Preview struct {
	Kind string `json:"kind"` // "diff", "command" or "url"
	Text string `json:"text"`
	// Path and NewText come with a diff of one file: its absolute path and
	// its whole proposed content, so an editor can show the change in its
	// own diff view. NewText is left out for contents over
	// MaxPreviewNewText bytes.
	Path    string  `json:"path,omitempty"`
	NewText *string `json:"newText,omitempty"`
}

// MaxPreviewNewText caps Preview.NewText.
const MaxPreviewNewText = 4 << 20

// FilePreview is the preview of a change of the file at path from old to
// new: diff is their unified diff.
func FilePreview(path, diff string, new []byte) *Preview {
	pv := &Preview{Kind: "diff", Text: diff, Path: path}
	if len(new) <= MaxPreviewNewText {
		s := string(new)
		pv.NewText = &s
	}
	return pv
}

// Prechecker is implemented by tools with checks whose outcome the user's
// answer cannot change (a stale file, a missing target, no runner). The
// pipeline runs them before the permission prompt, so the user is never
// asked to approve a call that then fails; a non-nil result is the call's
// result.
type Prechecker interface {
	Precheck(ctx context.Context, host Host, input json.RawMessage) *Result
}

// CommandPreview is a "command" preview of text; nil when text is empty.
func CommandPreview(text string) *Preview {
	if text == "" {
		return nil
	}
	return &Preview{Kind: "command", Text: text}
}

// Content is one block of a result.
type Content struct {
	Type     string `json:"type"` // "text" or "image"
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"`     // base64, for images
	MimeType string `json:"mimeType,omitempty"` // for images
}

// Result is what a call returns to the model.
type Result struct {
	Content    []Content `json:"content"`
	IsError    bool      `json:"isError"`
	Structured any       `json:"structured,omitempty"`
}

// TextResult is a successful result with one text block.
func TextResult(text string) *Result {
	return &Result{Content: []Content{{Type: "text", Text: text}}}
}

// ErrorResult is a result the model can act on: the text starts with
// "Error: " and should say what to do next.
func ErrorResult(format string, args ...any) *Result {
	return &Result{IsError: true, Content: []Content{{Type: "text", Text: "Error: " + fmt.Sprintf(format, args...)}}}
}

// Text joins the text blocks of a result (images are skipped).
func (r *Result) Text() string {
	if r == nil {
		return ""
	}
	var s string
	for i, c := range r.Content {
		if c.Type != "text" {
			continue
		}
		if i > 0 && s != "" {
			s += "\n"
		}
		s += c.Text
	}
	return s
}
