// Package engine runs tool calls: every mode (editor, MCP, CLI, sub-agents)
// calls tools only through its Pipeline, which looks a call's tool up,
// validates and repairs its input, decodes and prepares it once (for
// Planners), checks permission, runs hooks, reports progress, executes,
// and schedules the calls of a batch. The tools themselves and their types
// are the kernel's (package tools).
package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/toolhost/toolhost/tools"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/toolhost/toolhost/internal/visible"
	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools/hooks"
	"github.com/toolhost/toolhost/workspace"
)

// Request is one call as a client sends it.
type Request struct {
	CallID string          `json:"callId,omitempty"`
	Name   string          `json:"name"`
	Input  json.RawMessage `json:"input"`
	// Approval, when set, is what Check answered on this same call (the
	// caller matches name and input): the call runs as prepared and
	// decided there.
	Approval *Approval `json:"-"`
}

// Response is the result of one call with its timing, as toolhost/callTool
// returns it.
type Response struct {
	CallID string `json:"callId,omitempty"`
	*tools.Result
	DurationMs int64 `json:"durationMs"`
	// HookMessages are for the user, never the model: what hooks printed,
	// their system messages, and notes about hooks that failed or timed out.
	HookMessages []string `json:"hookMessages,omitempty"`
	// StopReason is set when a hook answered continue:false: the agent
	// should stop after this turn and show the reason to the user.
	StopReason string `json:"stopReason,omitempty"`
}

// DefaultMaxParallel is how many calls of a batch run at once by default.
const DefaultMaxParallel = 10

// Pipeline runs calls: look up, validate, check permission, run hooks,
// report progress, execute. Every mode (editor, MCP, CLI) calls tools only
// through it. Safe for concurrent use.
type Pipeline struct {
	Registry *tools.Registry
	Log      *slog.Logger
	// Permissions decides whether a call may run; nil allows every call.
	Permissions tools.PermissionChecker
	// Modes gives hooks the permission mode and turns a hook's "ask" into a
	// denial in dontAsk mode; nil counts as the default mode.
	Modes tools.ModeController

	validator   *Validator
	hooks       *hooks.Runner
	settings    func() *settings.Settings
	workDir     func() string
	trusted     func() bool
	sessionID   string
	resolve     func(string) (string, error)
	checkRoots  func() error
	maxParallel int
	// editFeedback wraps the host of a mutating call and returns what adds
	// to its result (the editor's diagnostics after its edits); nil adds
	// nothing.
	editFeedback EditFeedback
	// reviews gathers a turn's changes into one review (review.go).
	reviews *gatherer
	// waiting, set by tests, is told when a call of a batch starts waiting
	// for the earlier calls it conflicts with.
	waiting func(call int, on []int)
}

// Option configures a Pipeline.
type Option func(*Pipeline)

// WithPermissions sets the permission checker (nil allows every call).
func WithPermissions(c tools.PermissionChecker) Option {
	return func(p *Pipeline) { p.Permissions = c }
}

// WithModes sets the permission-mode controller hooks and "ask" read.
func WithModes(m tools.ModeController) Option { return func(p *Pipeline) { p.Modes = m } }

// EditFeedback wraps the host of a call that changes files; the function it
// returns (nil for none) is given the call's result and returns it with
// what the host learnt added.
type EditFeedback func(tools.Host) (tools.Host, func(context.Context, *tools.Result) *tools.Result)

// WithEditFeedback sets the feedback added to the results of calls that
// change files (tools/intel: the editor's diagnostics after an edit).
func WithEditFeedback(f EditFeedback) Option { return func(p *Pipeline) { p.editFeedback = f } }

// WithSettings sets where hooks and their env are read from; it is called
// per call, so changed settings apply to the next call. Without it no hook
// runs.
func WithSettings(get func() *settings.Settings) Option {
	return func(p *Pipeline) { p.settings = get }
}

// WithWorkDir sets the folder hooks run in (the first workspace root).
// Without it hooks run in the server's working directory.
func WithWorkDir(dir func() string) Option { return func(p *Pipeline) { p.workDir = dir } }

// WithTrust sets whether the workspace folder is trusted: until it is,
// hooks run in a neutral folder (hooks.Options.Trusted). Without it the
// folder counts as trusted.
func WithTrust(trusted func() bool) Option { return func(p *Pipeline) { p.trusted = trusted } }

// WithSessionID sets the session_id hooks receive.
func WithSessionID(id string) Option { return func(p *Pipeline) { p.sessionID = id } }

// WithPathResolver sets how the paths of an Access (as given in the input)
// become absolute paths, for permission checks and batch conflicts
// (workspace.Workspace.Resolve). Without it paths are made absolute
// against the server's working directory.
func WithPathResolver(resolve func(string) (string, error)) Option {
	return func(p *Pipeline) { p.resolve = resolve }
}

// WithRootCheck sets what refuses every call while a workspace folder is
// not the folder that was opened (workspace.Workspace.CheckRoots): hooks,
// permission checks and tools all work in the workspace folders.
func WithRootCheck(check func() error) Option { return func(p *Pipeline) { p.checkRoots = check } }

// NewPipeline returns a pipeline over reg.
func NewPipeline(reg *tools.Registry, log *slog.Logger, opts ...Option) *Pipeline {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &Pipeline{Registry: reg, Log: log, validator: NewValidator(), maxParallel: DefaultMaxParallel, reviews: newGatherer()}
	for _, o := range opts {
		o(p)
	}
	if p.resolve == nil {
		p.resolve = func(s string) (string, error) { return filepath.Abs(s) }
	}
	if p.workDir == nil {
		p.workDir = func() string { wd, _ := os.Getwd(); return wd }
	}
	p.hooks = hooks.NewRunner(hooks.Options{Settings: p.settings, Dir: p.workDir, Trusted: p.trusted, SessionID: p.sessionID, Log: log})
	return p
}

// Call runs one call for host. It returns a Go error only when ctx ended
// before a result was ready (the caller answers -32800); every other failure
// is a Result with IsError.
func (p *Pipeline) Call(ctx context.Context, host tools.Host, req Request) (*Response, error) {
	start := time.Now()
	if host == nil {
		host = tools.NoHost{}
	}
	c := &callState{req: req, host: host}
	// The change journal names the call, tool and agent of each change;
	// the host is asked here, before anything wraps it.
	origin := workspace.Origin{CallID: req.CallID, Tool: req.Name}
	if n, ok := host.(workspace.AgentNamer); ok {
		origin.Agent = n.AgentName()
	}
	ctx = workspace.WithOrigin(ctx, origin)
	res, err := p.run(ctx, c)
	if err != nil {
		return nil, err
	}
	return &Response{
		CallID:       req.CallID,
		Result:       res,
		DurationMs:   time.Since(start).Milliseconds(),
		HookMessages: c.messages,
		StopReason:   c.stopReason,
	}, nil
}

// callState is what one call gathers on its way through the pipeline.
type callState struct {
	req   Request
	host  tools.Host
	tool  tools.Tool
	input json.RawMessage
	// plan is the tool's decoding of input when it is a Planner (nil
	// otherwise, and once input changed); prepared is set once its
	// Prepare succeeded, so no step works the call out again.
	plan     tools.Plan
	prepared bool
	// access and risk are the call's, from the tool (paths absolute).
	access tools.Access
	risk   tools.Risk
	// reviewEdits is the checker's answer that the editor's review of the
	// call's edits is the prompt.
	reviewEdits bool
	// accepted is what the user accepted of the call's change in a review
	// of its turn (nil: none); reviewNote, when set, tells the model how
	// it differs from the proposal.
	accepted   []byte
	reviewNote string
	// approvedReads are the checker's approvals of reads outside the
	// workspace, for the input the call runs with.
	approvedReads []workspace.ApprovedRead
	// approval, when set, is the Check the client showed the user.
	approval *Approval
	// context is hooks' additionalContext, appended to the result.
	context []contextNote
	// repairs are notes on input repaired before validation (repair.go).
	repairs []string
	// messages and stopReason go to the Response.
	messages   []string
	stopReason string
}

type contextNote struct{ event, text string }

// absorb takes what every hook outcome contributes besides its decision.
func (c *callState) absorb(event string, out hooks.Outcome) {
	c.messages = append(c.messages, out.Messages...)
	for _, t := range out.Context {
		c.context = append(c.context, contextNote{event, t})
	}
	if out.Stop && c.stopReason == "" {
		c.stopReason = out.StopReason
	}
}

// prepare looks the call's tool up and validates its input; a non-nil
// Result is the answer when the call cannot run.
func (p *Pipeline) prepare(c *callState) *tools.Result {
	entry, ok := p.Registry.Lookup(c.req.Name)
	if !ok {
		msg := fmt.Sprintf("no tool named %q.", c.req.Name)
		if s := p.Registry.Suggest(c.req.Name, 3); len(s) > 0 {
			msg += " Did you mean " + strings.Join(s, ", ") + "?"
		}
		return tools.ErrorResult("%s Call toolhost/listTools for the available tools.", msg)
	}
	if !entry.Enabled {
		if entry.OptIn {
			return tools.ErrorResult("the tool %s is off by default; the user can turn it on with the tools.optIn setting (\"tools\": {\"optIn\": [\"%s\"]}) or toolhost/setToolsEnabled.", entry.Tool.Name(), entry.Tool.Name())
		}
		return tools.ErrorResult("the tool %s is disabled; enable it with toolhost/setToolsEnabled or the tools.enabled setting.", entry.Tool.Name())
	}
	// A tool this host cannot serve is not offered to it; a model that
	// calls it anyway learns why and what to do instead.
	if why := tools.Unservable(entry.Tool, c.host); why != "" {
		return tools.ErrorResult("%s", why)
	}
	c.tool = entry.Tool
	c.input = normalInput(c.req.Input)
	if res := p.validate(c.tool, c.input, ""); res != nil {
		if refusal := actingFieldRefusal(c.tool.Name(), c.tool.InputSchema(), c.input); refusal != nil {
			return refusal
		}
		strict, _ := c.tool.(tools.StrictInput)
		fixed, notes, ok := repairInput(c.tool.InputSchema(), c.input, strict != nil && strict.StrictInput())
		if !ok || p.validate(c.tool, fixed, "") != nil {
			return res
		}
		c.input, c.repairs = fixed, notes
	}
	if pl, ok := c.tool.(tools.Planner); ok {
		// Decoded once, here; every later step is handed the plan.
		var res *tools.Result
		p.safely(c.tool.Name(), "Decode", func() { c.plan, res = pl.Decode(c.input) })
		if res != nil {
			return res
		}
	}
	c.access = p.access(c.tool, c.input, c.plan)
	c.risk = p.risk(c.tool, c.input)
	return nil
}

// permissionCall is what the checker decides on for a prepared call.
func (c *callState) permissionCall() tools.PermissionCall {
	return tools.PermissionCall{CallID: c.req.CallID, Tool: c.tool, Input: c.input, Access: c.access, Risk: c.risk, Plan: c.plan}
}

// setInput makes input, which a permission answer or a hook rewrote, the
// call's: the plan of the old input no longer holds, so the tool decodes
// the new one itself when it runs.
func (c *callState) setInput(input json.RawMessage) {
	c.input, c.plan, c.prepared = input, nil, false
}

// precheck runs what cannot depend on the user's answer: the plan's
// Prepare (once per call: a Check that prepared it for its preview has
// done it) or the tool's Precheck. A non-nil result ends the call.
func (p *Pipeline) precheck(ctx context.Context, c *callState) *tools.Result {
	if c.plan == nil {
		pc, ok := c.tool.(tools.Prechecker)
		if !ok {
			return nil
		}
		var res *tools.Result
		p.safely(c.tool.Name(), "Precheck", func() { res = pc.Precheck(ctx, c.host, c.input) })
		return res
	}
	if c.prepared {
		return nil
	}
	var res *tools.Result
	p.safely(c.tool.Name(), "Prepare", func() { res = c.plan.Prepare(ctx, c.host) })
	c.prepared = res == nil
	return res
}

// Checked is toolhost/checkPermission's answer on a call: the decision,
// the prompt for "ask", and the call prepared and decided on, for the Call
// that presents it.
type Checked struct {
	Decision tools.PermissionDecision
	// Prompt is what the user is asked when the decision is "ask" (nil
	// otherwise, or when the checker cannot tell its prompt).
	Prompt *tools.PermissionRequest
	// Approval is the prepared call with its decision; nil for a denial.
	Approval *Approval
}

// Approval is a call Check prepared and decided on. A Call whose
// Request carries it runs the prepared input without preparing it again,
// and counts the decision as the user's answer: the client showed
// Checked.Prompt and the user agreed. The decision is only looked at
// again for what may have changed since: a call the rules now deny is
// denied, and one whose reads outside the workspace now lead elsewhere
// than the prompt named is asked again. Use it once.
type Approval struct {
	state    callState
	decision tools.PermissionDecision
}

// Check is the permission checker's decision on req as the pipeline would
// make it, without running the tool, its hooks or a prompt
// (toolhost/checkPermission): the call is prepared once and decided on
// once, and for "ask" the prompt is built from that same call. When req
// cannot be called (an unknown or disabled tool, an input that fails the
// schema) the Result says why.
func (p *Pipeline) Check(ctx context.Context, host tools.Host, req Request) (Checked, *tools.Result) {
	if host == nil {
		host = tools.NoHost{}
	}
	c := &callState{req: req, host: host}
	if res := p.prepare(c); res != nil {
		return Checked{}, res
	}
	if p.Permissions == nil {
		d := tools.PermissionDecision{Verdict: tools.VerdictAllow, Reason: "no permission checker is configured"}
		return Checked{Decision: d, Approval: &Approval{state: *c, decision: d}}, nil
	}
	var d tools.PermissionDecision
	p.safely(c.tool.Name(), "permission decision", func() { d = p.Permissions.Decide(host, c.permissionCall()) })
	if d.Verdict == "" {
		return Checked{}, tools.ErrorResult("the permission decision on %s failed; see the server log.", c.tool.Name())
	}
	out := Checked{Decision: d}
	if d.Verdict == tools.VerdictDeny {
		return out, nil
	}
	if prompter, ok := p.Permissions.(tools.PermissionPrompter); ok && d.Verdict == tools.VerdictAsk {
		// The prompt's preview is of the plan the call will run with; a
		// plan that fails has none, and the call then fails as it runs.
		p.precheck(ctx, c)
		p.safely(c.tool.Name(), "permission prompt", func() {
			r := prompter.Prompt(ctx, host, c.permissionCall())
			out.Prompt = &r
		})
	}
	out.Approval = &Approval{state: *c, decision: d}
	return out, nil
}

// approved settles the permission of a call that presents an Approval:
// allowed (true) on the decision the client showed, unless the rules now
// deny it (a result) or its reads now lead elsewhere (false: ask again).
func (p *Pipeline) approved(c *callState) (bool, *tools.Result) {
	if p.Permissions == nil {
		return true, nil
	}
	var now tools.PermissionDecision
	p.safely(c.tool.Name(), "permission decision", func() { now = p.Permissions.Decide(c.host, c.permissionCall()) })
	switch {
	case now.Verdict == tools.VerdictDeny:
		return false, denied(c.tool.Name(), now.Reason)
	case now.Verdict == "" || !slices.EqualFunc(now.ApprovedReads, c.approval.decision.ApprovedReads, workspace.ApprovedRead.Same):
		return false, nil
	}
	// An "ask" the client showed is the user's answer; an "allow" stays
	// what it was (the editor's review of edits included). The reads are
	// approved as the prompt named them.
	c.reviewEdits = now.Verdict == tools.VerdictAllow && now.Review
	c.approvedReads = c.approval.decision.ApprovedReads
	return true, nil
}

func (p *Pipeline) run(ctx context.Context, c *callState) (*tools.Result, error) {
	// Past the review of its turn, or ended: planned (review.go).
	defer settle(ctx)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if a := c.req.Approval; a != nil {
		// Prepared by Check: the same tool and input, not prepared again.
		c.tool, c.input, c.access, c.risk, c.repairs = a.state.tool, a.state.input, a.state.access, a.state.risk, a.state.repairs
		c.plan, c.prepared = a.state.plan, a.state.prepared
		c.approval = a
	} else if res := p.prepare(c); res != nil {
		return res, nil
	}
	if p.checkRoots != nil {
		if err := p.checkRoots(); err != nil {
			return tools.ErrorResult("%s was refused: %v.", c.tool.Name(), err), nil
		}
	}

	// What cannot depend on the user's answer is checked before asking.
	if res := p.precheck(ctx, c); res != nil {
		return res, nil
	}
	name := c.tool.Name()
	access := c.access
	allowed := false
	if c.approval != nil {
		var res *tools.Result
		if allowed, res = p.approved(c); res != nil {
			return res, nil
		}
	}
	// A change the user is to review joins the review of its turn when the
	// editor reviews changes as one: instead of a prompt, or of the
	// editor's review of this file alone.
	if r, prop := reviewer(c); r != nil && p.Permissions != nil {
		review := allowed && c.reviewEdits
		if !allowed {
			var d tools.PermissionDecision
			p.safely(name, "permission decision", func() { d = p.Permissions.Decide(c.host, c.permissionCall()) })
			switch {
			case d.Verdict == tools.VerdictDeny:
				return denied(name, d.Reason), nil
			case d.Verdict == tools.VerdictAllow && !d.Review:
				allowed, c.approvedReads = true, d.ApprovedReads
			case d.Verdict == tools.VerdictAsk || d.Verdict == tools.VerdictAllow:
				review, c.approvedReads = true, d.ApprovedReads
			}
		}
		if review {
			if res, err := p.reviewTurn(ctx, c, r, prop); res != nil || err != nil {
				return res, err
			}
			allowed = true
		}
	}
	if p.Permissions != nil && !allowed {
		out, err := p.Permissions.Check(ctx, c.host, c.permissionCall())
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			p.Log.Error("permission check failed", "tool", name, "err", err)
			return tools.ErrorResult("the permission check for %s failed (%v), so the call did not run. This is a failure of the tool host; retrying may help.", name, err), nil
		}
		if !out.Allow {
			return denied(name, out.Message), nil
		}
		c.reviewEdits = out.Review
		c.approvedReads = out.ApprovedReads
		if len(out.UpdatedInput) > 0 {
			if res := p.validate(c.tool, out.UpdatedInput, "the input as the user changed it"); res != nil {
				return res, nil
			}
			input, res, err := p.recheck(ctx, c, out.UpdatedInput, true)
			if res != nil || err != nil {
				return res, err
			}
			c.setInput(input)
		}
	}

	if res, err := p.preToolUse(ctx, c); res != nil || err != nil {
		return res, err
	}

	res, err := p.execute(ctx, c, title(name, access))
	if err != nil {
		return nil, err
	}

	if c.reviewNote != "" && !res.IsError {
		res = withNotes(res, []string{c.reviewNote})
	}
	if res, err = p.postToolUse(ctx, c, res); err != nil {
		return nil, err
	}
	return withNotes(withContext(res, c.context), c.repairs), nil
}

// validate checks input against the tool's schema and returns the error
// result when it does not fit; what names the input in messages ("" for the
// caller's own input, else e.g. "the input as the user changed it").
func (p *Pipeline) validate(t tools.Tool, input json.RawMessage, what string) *tools.Result {
	problems, err := p.validator.Problems(t, input, p.Registry.Names)
	var serr *SchemaError
	switch {
	case errors.As(err, &serr):
		p.Log.Error("tool schema does not compile", "tool", t.Name(), "err", serr.Err)
		return tools.ErrorResult("the tool %s cannot be called: its own input schema is broken (%v). This is a fault of the tool, not of your input; use another tool.", t.Name(), serr.Err)
	case err != nil:
		p.Log.Error("validation failed", "tool", t.Name(), "err", err)
		return tools.ErrorResult("the input of %s could not be checked (%v); the call did not run.", t.Name(), err)
	case len(problems) == 0:
		return nil
	case what == "":
		return invalidInput("invalid input for "+t.Name(), problems)
	}
	return invalidInput(what+" is invalid for "+t.Name(), problems)
}

// preToolUse runs the PreToolUse hooks. It returns a result when they end
// the call before it runs. Hooks run after the permission check (the order
// of design section 4), so a hook's "allow" cannot skip a prompt already
// answered; "deny" refuses, "ask" asks the user even when the rules allowed.
func (p *Pipeline) preToolUse(ctx context.Context, c *callState) (*tools.Result, error) {
	name := c.tool.Name()
	if !p.hooks.Has(hooks.PreToolUse, name) {
		return nil, nil
	}
	out := p.hooks.Run(ctx, hooks.Event{
		Name: hooks.PreToolUse, ToolName: name, ToolUseID: c.req.CallID,
		ToolInput: c.input, PermissionMode: p.mode(),
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c.absorb(hooks.PreToolUse, out)
	if c.stopReason != "" {
		return withContext(tools.ErrorResult("a PreToolUse hook stopped the agent before %s ran: %s", name, c.stopReason), c.context), nil
	}
	reasons := strings.Join(out.Reasons, "; ")
	switch out.Decision {
	case hooks.DecisionDeny:
		if reasons == "" {
			reasons = "no reason given"
		}
		return withContext(tools.ErrorResult("a PreToolUse hook blocked %s: %s. Do not retry the same call; change the approach or ask the user.", name, reasons), c.context), nil
	case hooks.DecisionAsk:
		if res, err := p.askForHook(ctx, c, reasons); res != nil || err != nil {
			return withContext(res, c.context), err
		}
	}
	if len(out.UpdatedInput) > 0 {
		if res := p.validate(c.tool, out.UpdatedInput, "the input as a PreToolUse hook rewrote it"); res != nil {
			return withContext(res, c.context), nil
		}
		input, res, err := p.recheck(ctx, c, out.UpdatedInput, false)
		if res != nil || err != nil {
			return withContext(res, c.context), err
		}
		c.setInput(input)
	}
	return nil, nil
}

// askForHook asks the user to confirm a call a hook wants confirmed. It
// returns a result when the call must not run.
func (p *Pipeline) askForHook(ctx context.Context, c *callState, reason string) (*tools.Result, error) {
	name := c.tool.Name()
	if p.mode() == tools.ModeDontAsk {
		return tools.ErrorResult("a PreToolUse hook asked for the user's confirmation of %s, and the permission mode dontAsk denies what would need asking.", name), nil
	}
	var req tools.PermissionRequest
	if prompter, ok := p.Permissions.(tools.PermissionPrompter); ok {
		// The checker's prompt, so the user reads it as every prompt:
		// invisible characters written out.
		call := c.permissionCall()
		call.HookAsk, call.HookReason = true, reason
		p.safely(name, "permission prompt", func() { req = prompter.Prompt(ctx, c.host, call) })
	}
	if req.ToolName == "" {
		req = tools.PermissionRequest{CallID: c.req.CallID, ToolName: name, Input: c.input, Risk: c.risk, Title: "A hook asks you to confirm " + name}
		if reason != "" {
			req.Title += ": " + reason
		}
		req.Title = visible.Line(req.Title)
		p.safely(name, "Preview", func() { req.Preview = tools.PreviewOf(ctx, c.permissionCall()) })
		if req.Preview != nil {
			req.Preview.Text = visible.Text(req.Preview.Text)
		}
	}
	ans, err := c.host.RequestPermission(ctx, req)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, ctxErr
	}
	switch {
	case errors.Is(err, tools.ErrCannotAsk):
		return tools.ErrorResult("a PreToolUse hook asked for the user's confirmation of %s, but the client cannot show dialogs, so the call was denied.", name), nil
	case errors.Is(err, tools.ErrDismissed):
		return tools.ErrorResult("the user dismissed the confirmation a PreToolUse hook asked for, so %s did not run. Ask the user how to proceed.", name), nil
	case err != nil:
		p.Log.Warn("permission prompt failed", "tool", name, "err", err)
		return tools.ErrorResult("a PreToolUse hook asked for the user's confirmation of %s, and asking failed (%v), so the call was denied.", name, err), nil
	}
	if !ans.Consented() {
		msg := "the user denied " + name
		if ans.Message != "" {
			msg += ": " + ans.Message
		}
		return tools.ErrorResult("%s. Do not retry the same call; ask the user how to proceed.", msg), nil
	}
	if ans.UpdatedInput != nil {
		updated, err := json.Marshal(ans.UpdatedInput)
		if err != nil {
			return tools.ErrorResult("the input the user edited could not be read (%v); the call did not run.", err), nil
		}
		if res := p.validate(c.tool, updated, "the input as the user changed it"); res != nil {
			return res, nil
		}
		input, res, err := p.recheck(ctx, c, updated, true)
		if res != nil || err != nil {
			return res, err
		}
		c.setInput(input)
	}
	return nil, nil
}

// execute runs the tool between progress begin and end, with a context the
// user can cancel from the editor. It returns an error only when ctx ended.
func (p *Pipeline) execute(ctx context.Context, c *callState, title string) (*tools.Result, error) {
	name := c.tool.Name()
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	progress := c.host.BeginProgress(ctx, title, cancel)
	if progress == nil {
		progress = tools.NoProgress{}
	}
	host := c.host
	var feedback func(context.Context, *tools.Result) *tools.Result
	if p.editFeedback != nil && c.tool.SideEffect() == tools.SideEffectMutating {
		host, feedback = p.editFeedback(host)
	}
	var res *tools.Result
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				p.Log.Error("tool panicked", "tool", name, "panic", r, "stack", string(debug.Stack()))
				err = fmt.Errorf("the tool crashed: %v", r)
			}
		}()
		res, err = c.tool.Execute(callCtx, &tools.Call{ID: c.req.CallID, Name: c.req.Name, Input: c.input, Host: host, Progress: progress, ReviewEdits: c.reviewEdits, Accepted: c.accepted, ApprovedReads: c.approvedReads, Plan: c.plan})
	}()
	elapsed := time.Since(start).Round(time.Millisecond)

	switch {
	case ctx.Err() != nil:
		progress.End("cancelled after " + elapsed.String())
		return nil, ctx.Err()
	case callCtx.Err() != nil:
		progress.End("cancelled after " + elapsed.String())
		return tools.ErrorResult("interrupted: the user cancelled %s from the editor after %s; it may have done part of its work. Ask the user before running it again.", name, elapsed), nil
	case err != nil:
		progress.End("failed after " + elapsed.String())
		p.Log.Error("tool failed", "tool", name, "err", err)
		return tools.ErrorResult("%s failed: %v. %s.", name, err, hostFailureAdvice(err)), nil
	case res == nil:
		res = tools.TextResult("")
	}
	if feedback != nil {
		res = feedback(callCtx, res)
	}
	if res.IsError {
		progress.End("failed after " + elapsed.String())
	} else {
		progress.End("done in " + elapsed.String())
	}
	return res, nil
}

// postToolUse runs the PostToolUse hooks of a result, or the
// PostToolUseFailure hooks of an error result.
func (p *Pipeline) postToolUse(ctx context.Context, c *callState, res *tools.Result) (*tools.Result, error) {
	name := c.tool.Name()
	ev := hooks.Event{Name: hooks.PostToolUse, ToolName: name, ToolUseID: c.req.CallID, ToolInput: c.input, PermissionMode: p.mode()}
	if res.IsError {
		ev.Name = hooks.PostToolUseFailure
		ev.Error = res.Text()
		ev.IsInterrupt = strings.HasPrefix(ev.Error, "Error: interrupted:")
	} else if res.Structured != nil {
		// The tool's own output shape, as Claude Code gives hooks.
		ev.ToolResponse = res.Structured
	} else {
		ev.ToolResponse = res
	}
	if !p.hooks.Has(ev.Name, name) {
		return res, nil
	}
	out := p.hooks.Run(ctx, ev)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c.absorb(ev.Name, out)
	if out.Decision == hooks.DecisionBlock && len(out.Reasons) > 0 {
		for _, r := range out.Reasons {
			c.context = append(c.context, contextNote{ev.Name, "blocked: " + r})
		}
	}
	return res, nil
}

// withContext returns res with hooks' notes appended as text blocks. res
// may be shared (a tool's cache), so it is copied, never changed.
func withContext(res *tools.Result, notes []contextNote) *tools.Result {
	if len(notes) == 0 {
		return res
	}
	texts := make([]string, len(notes))
	for i, n := range notes {
		texts[i] = "[" + n.event + " hook] " + n.text
	}
	return withNotes(res, texts)
}

// denied is the result of a call the permission checker refused. The
// checker's message says what to do next; it is kept, with the Error prefix
// the model expects.
func denied(tool, msg string) *tools.Result {
	msg = strings.TrimPrefix(strings.TrimSpace(msg), "Error: ")
	if msg == "" {
		msg = fmt.Sprintf("permission to run %s was denied. Do not retry the same call; ask the user how to proceed or take another approach", tool)
	}
	return tools.ErrorResult("%s", msg)
}

// access is what a call touches with its paths resolved to absolute ones:
// its plan's when it has one (nothing decoded again), else its tool's.
func (p *Pipeline) access(t tools.Tool, input json.RawMessage, plan tools.Plan) tools.Access {
	var a tools.Access
	if ad, ok := t.(tools.AccessDescriber); plan != nil {
		p.safely(t.Name(), "Access", func() { a = plan.Access() })
	} else if ok {
		p.safely(t.Name(), "Access", func() { a = ad.Access(input) })
	} else {
		return tools.Access{}
	}
	a.ReadPaths = p.absolute(a.ReadPaths)
	a.WritePaths = p.absolute(a.WritePaths)
	return a
}

func (p *Pipeline) absolute(paths []string) []string {
	if len(paths) == 0 {
		return nil
	}
	out := make([]string, 0, len(paths))
	for _, s := range paths {
		if abs, err := p.resolve(s); err == nil {
			s = abs
		}
		out = append(out, s)
	}
	return out
}

// risk is the tool's own assessment, or the default of its side effect.
func (p *Pipeline) risk(t tools.Tool, input json.RawMessage) tools.Risk {
	r := tools.DefaultRisk(t.SideEffect())
	if ra, ok := t.(tools.RiskAssessor); ok {
		p.safely(t.Name(), "Risk", func() {
			if got := ra.Risk(input); got != "" {
				r = got
			}
		})
	}
	return r
}

// safely runs a tool's optional method; a panic in it is logged instead of
// taking the server down, and the call goes on with the zero answer.
func (p *Pipeline) safely(tool, method string, f func()) {
	defer func() {
		if r := recover(); r != nil {
			p.Log.Error("tool method panicked", "tool", tool, "method", method, "panic", r, "stack", string(debug.Stack()))
		}
	}()
	f()
}

func (p *Pipeline) mode() string {
	if p.Modes == nil {
		return tools.ModeDefault
	}
	return p.Modes.Mode()
}

// normalInput makes a missing or null input an empty object.
func normalInput(in json.RawMessage) json.RawMessage {
	if len(in) == 0 || string(in) == "null" {
		return json.RawMessage("{}")
	}
	return in
}

// title names a call in the editor's progress: the tool and what it works on.
func title(name string, a tools.Access) string {
	target := a.Command
	if target == "" && len(a.WritePaths) > 0 {
		target = filepath.Base(a.WritePaths[0])
	}
	if target == "" && len(a.ReadPaths) > 0 {
		target = filepath.Base(a.ReadPaths[0])
	}
	if target == "" {
		target = a.Domain
	}
	target = strings.Join(strings.Fields(target), " ")
	if len(target) > 60 {
		target = target[:57] + "..."
	}
	if target == "" {
		return name
	}
	return name + ": " + target
}
