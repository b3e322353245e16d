// Package hooks runs the user's tool hooks: shell commands configured in
// settings under hooks.PreToolUse, hooks.PostToolUse and
// hooks.PostToolUseFailure, in Claude Code's shape, so hooks written for
// Claude Code work unchanged.
//
// A hook receives the event as JSON on stdin (session_id, cwd,
// permission_mode, hook_event_name, tool_name, tool_input, tool_use_id, and
// tool_response or error after the call). It answers with its exit code and,
// optionally, JSON on stdout:
//
//   - exit 0: success; stdout is parsed as JSON when it is a JSON object and
//     otherwise kept as plain text for the user;
//   - exit 2: blocks; stderr is the reason, shown to the model;
//   - any other exit: a non-blocking error, logged and reported to the user.
//
// JSON fields honoured: continue (false stops the agent after this call,
// with stopReason), suppressOutput (keeps the hook's stdout from the user),
// systemMessage (shown to the user), decision "block"/"approve" with reason,
// and hookSpecificOutput.{permissionDecision, permissionDecisionReason,
// updatedInput, additionalContext}.
//
// Matching hooks of one event run in parallel; their outcomes are merged in
// the order of the settings. A hook that outlives its timeout (default 60 s)
// is killed with its whole process group and the call goes on with a note.
package hooks

import (
	"context"
	"encoding/json"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolhost/toolhost/internal/pathutil"
	"github.com/toolhost/toolhost/settings"
)

// Events a hook can be configured for.
const (
	PreToolUse         = "PreToolUse"
	PostToolUse        = "PostToolUse"
	PostToolUseFailure = "PostToolUseFailure"
)

// Decisions an Outcome can carry. Deny and Block are the same strength: Deny
// is used for PreToolUse (the call does not run), Block for the events after
// a call (the reason is fed back to the model).
const (
	DecisionAllow = "allow"
	DecisionAsk   = "ask"
	DecisionDeny  = "deny"
	DecisionBlock = "block"
)

// DefaultTimeout applies to hooks whose settings give no timeout.
const DefaultTimeout = 60 * time.Second

// Event is one occurrence hooks are run for.
type Event struct {
	// Name is PreToolUse, PostToolUse or PostToolUseFailure.
	Name string
	// ToolName is the canonical name of the tool; matchers test it.
	ToolName  string
	ToolUseID string
	ToolInput json.RawMessage
	// ToolResponse is what the tool returned (PostToolUse).
	ToolResponse any
	// Error is the failure's text (PostToolUseFailure).
	Error string
	// IsInterrupt says the failure was a cancellation (PostToolUseFailure).
	IsInterrupt bool
	// PermissionMode is the session's permission mode, when known.
	PermissionMode string
}

// Outcome is the merged answer of every hook that ran for an event.
type Outcome struct {
	// Decision is the strongest decision given: deny/block beat ask, ask
	// beats allow; "" when no hook decided.
	Decision string
	// Reasons explain Decision (for deny, ask and block), one per hook that
	// gave one, for the model.
	Reasons []string
	// UpdatedInput replaces the tool's input (PreToolUse). When several hooks
	// rewrite the input, the last in settings order wins.
	UpdatedInput json.RawMessage
	// Context is additionalContext for the model, in settings order.
	Context []string
	// Stop is set when a hook answered continue:false; the agent should stop
	// after this call, for StopReason.
	Stop       bool
	StopReason string
	// Messages are for the user, never the model: hooks' plain output,
	// systemMessage, failures and timeouts.
	Messages []string
}

// Options configure a Runner.
type Options struct {
	// Settings returns the current settings; hooks and env are read from it
	// on every event, so changed settings apply to the next call.
	Settings func() *settings.Settings
	// Dir returns the folder hooks run in (the first workspace root); it is
	// also given to hooks as CLAUDE_PROJECT_DIR.
	Dir func() string
	// Trusted reports whether the workspace folder is trusted. Until it is,
	// hook processes start in pathutil.NeutralDir(), so that a user's hook
	// such as `npx -y prettier` does not run the folder's own
	// node_modules; the event's cwd and CLAUDE_PROJECT_DIR still name the
	// workspace. Nil means trusted.
	Trusted func() bool
	// SessionID is passed to hooks as session_id.
	SessionID string
	Log       *slog.Logger
}

// Runner runs the configured hooks of events. Safe for concurrent use.
type Runner struct {
	opts Options

	mu sync.Mutex
	// matchers caches compiled matcher expressions by their text; a nil
	// entry records an expression that does not compile.
	matchers map[string]*regexp.Regexp
}

// NewRunner returns a runner over opts.
func NewRunner(opts Options) *Runner {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	return &Runner{opts: opts, matchers: map[string]*regexp.Regexp{}}
}

// Has reports whether any hook is configured for event and tool, so callers
// can skip preparing an event nobody listens to.
func (r *Runner) Has(event, tool string) bool {
	return len(r.commands(event, tool)) > 0
}

// Run runs every hook configured for ev and merges their answers. It returns
// when all of them have ended; when ctx ends first the hooks are killed and
// the partial outcome is returned (the caller checks ctx).
func (r *Runner) Run(ctx context.Context, ev Event) Outcome {
	cmds := r.commands(ev.Name, ev.ToolName)
	if len(cmds) == 0 {
		return Outcome{}
	}
	var set *settings.Settings
	if r.opts.Settings != nil {
		set = r.opts.Settings()
	}
	dir := ""
	if r.opts.Dir != nil {
		dir = r.opts.Dir()
	}
	procDir := dir
	if r.opts.Trusted != nil && !r.opts.Trusted() {
		procDir = pathutil.NeutralDir()
	}
	stdin, err := json.Marshal(r.input(ev, dir))
	if err != nil {
		// Only a ToolResponse that cannot be encoded gets here; the hooks
		// still deserve the event, without it.
		r.opts.Log.Warn("hook event not encodable", "event", ev.Name, "tool", ev.ToolName, "err", err)
		ev.ToolResponse = nil
		stdin, _ = json.Marshal(r.input(ev, dir))
	}
	var env map[string]string
	if set != nil {
		env = set.Env
	}

	replies := make([]reply, len(cmds))
	var wg sync.WaitGroup
	for i, c := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			replies[i] = run(ctx, c, stdin, dir, procDir, env)
		}()
	}
	wg.Wait()

	var out Outcome
	for i, rep := range replies {
		r.merge(&out, ev.Name, cmds[i], rep)
	}
	return out
}

// input is the JSON a hook reads on stdin, with Claude Code's field names.
type input struct {
	SessionID      string          `json:"session_id"`
	Cwd            string          `json:"cwd"`
	PermissionMode string          `json:"permission_mode,omitempty"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id,omitempty"`
	ToolResponse   any             `json:"tool_response,omitempty"`
	Error          string          `json:"error,omitempty"`
	IsInterrupt    bool            `json:"is_interrupt,omitempty"`
}

func (r *Runner) input(ev Event, dir string) input {
	toolInput := ev.ToolInput
	if len(toolInput) == 0 {
		toolInput = json.RawMessage("{}")
	}
	return input{
		SessionID:      r.opts.SessionID,
		Cwd:            dir,
		PermissionMode: ev.PermissionMode,
		HookEventName:  ev.Name,
		ToolName:       ev.ToolName,
		ToolInput:      toolInput,
		ToolUseID:      ev.ToolUseID,
		ToolResponse:   ev.ToolResponse,
		Error:          ev.Error,
		IsInterrupt:    ev.IsInterrupt,
	}
}

// commands returns the hooks configured for event whose matcher selects
// tool, in settings order, without duplicates (the same command listed
// under two matchers runs once, as in Claude Code).
func (r *Runner) commands(event, tool string) []settings.HookCommand {
	if r.opts.Settings == nil {
		return nil
	}
	set := r.opts.Settings()
	if set == nil {
		return nil
	}
	var out []settings.HookCommand
	seen := map[string]bool{}
	for _, m := range set.Hooks[event] {
		if !r.matches(m.Matcher, tool) {
			continue
		}
		for _, h := range m.Hooks {
			if h.Type != "" && h.Type != "command" {
				r.opts.Log.Warn("hook type not supported; only command hooks run", "type", h.Type, "event", event)
				continue
			}
			if strings.TrimSpace(h.Command) == "" || seen[h.Command] {
				continue
			}
			seen[h.Command] = true
			out = append(out, h)
		}
	}
	return out
}

// plainMatcher is a matcher made only of names and "|": it lists tool names
// exactly (Claude Code's rule), so "Edit" does not select "NotebookEdit".
var plainMatcher = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_|]+$`) })

// matches reports whether matcher selects tool: "" and "*" select every
// tool; names joined by "|" select exactly those; anything else is a regular
// expression searched in the name ("mcp__github__.*", "Notebook.*"). Names
// are case-sensitive, as in Claude Code.
func (r *Runner) matches(matcher, tool string) bool {
	matcher = strings.TrimSpace(matcher)
	if matcher == "" || matcher == "*" {
		return true
	}
	if plainMatcher().MatchString(matcher) {
		for _, name := range strings.Split(matcher, "|") {
			if name == tool {
				return true
			}
		}
		return false
	}
	r.mu.Lock()
	re, ok := r.matchers[matcher]
	if !ok {
		var err error
		re, err = regexp.Compile(matcher)
		if err != nil {
			r.opts.Log.Warn("hook matcher is not a valid regular expression; it selects no tool", "matcher", matcher, "err", err)
			re = nil
		}
		r.matchers[matcher] = re
	}
	r.mu.Unlock()
	return re != nil && re.MatchString(tool)
}

// strength orders decisions for merging.
func strength(d string) int {
	switch d {
	case DecisionDeny, DecisionBlock:
		return 3
	case DecisionAsk:
		return 2
	case DecisionAllow:
		return 1
	}
	return 0
}

// merge folds one hook's reply into out.
func (r *Runner) merge(out *Outcome, event string, cmd settings.HookCommand, rep reply) {
	name := label(cmd.Command)
	log := r.opts.Log.With("event", event, "hook", cmd.Command)
	decide := func(d, reason string) {
		if strength(d) > strength(out.Decision) {
			out.Decision = d
		}
		if reason = strings.TrimSpace(reason); reason != "" {
			out.Reasons = append(out.Reasons, reason)
		}
	}
	blocking := DecisionDeny
	if event != PreToolUse {
		blocking = DecisionBlock
	}

	switch {
	case rep.interrupted:
		return
	case rep.timedOut:
		log.Warn("hook timed out and was killed", "timeout", rep.timeout)
		out.Messages = append(out.Messages, event+" hook "+name+" did not finish within "+rep.timeout.String()+" and was stopped; the call went on without it")
		return
	case rep.startErr != nil:
		log.Warn("hook could not start", "err", rep.startErr)
		out.Messages = append(out.Messages, event+" hook "+name+" could not start: "+rep.startErr.Error())
		return
	case rep.exitCode == 2:
		reason := strings.TrimSpace(rep.stderr)
		if reason == "" {
			reason = "a " + event + " hook (" + name + ") blocked this call without giving a reason"
		}
		log.Info("hook blocked", "reason", reason)
		decide(blocking, reason)
		return
	case rep.exitCode != 0:
		log.Warn("hook failed; continuing", "exit", rep.exitCode, "stderr", rep.stderr)
		msg := event + " hook " + name + " failed with exit status " + strconv.Itoa(rep.exitCode)
		if s := strings.TrimSpace(rep.stderr); s != "" {
			msg += ": " + s
		}
		out.Messages = append(out.Messages, msg)
		return
	}

	stdout := strings.TrimSpace(rep.stdout)
	ans, isJSON := parseAnswer(stdout)
	if !isJSON {
		if stdout != "" {
			out.Messages = append(out.Messages, stdout)
		}
		return
	}
	if !ans.SuppressOutput && stdout != "" {
		out.Messages = append(out.Messages, stdout)
	}
	if ans.SystemMessage != "" {
		out.Messages = append(out.Messages, ans.SystemMessage)
	}
	if ans.Continue != nil && !*ans.Continue {
		out.Stop = true
		if out.StopReason == "" {
			out.StopReason = strings.TrimSpace(ans.StopReason)
		}
		if out.StopReason == "" {
			out.StopReason = "a " + event + " hook (" + name + ") asked to stop"
		}
	}
	switch ans.Decision {
	case "block":
		decide(blocking, ans.Reason)
	case "approve":
		if event == PreToolUse {
			decide(DecisionAllow, ans.Reason)
		}
	}
	if hs := ans.HookSpecificOutput; hs != nil {
		if event == PreToolUse {
			switch hs.PermissionDecision {
			case DecisionAllow, DecisionAsk, DecisionDeny:
				decide(hs.PermissionDecision, hs.PermissionDecisionReason)
			case "":
			default:
				log.Warn("hook gave an unknown permissionDecision; ignored", "decision", hs.PermissionDecision)
			}
			if len(hs.UpdatedInput) > 0 && string(hs.UpdatedInput) != "null" {
				out.UpdatedInput = hs.UpdatedInput
			}
		}
		if c := strings.TrimSpace(hs.AdditionalContext); c != "" {
			out.Context = append(out.Context, c)
		}
	}
}

// answer is the JSON a hook may print on stdout.
type answer struct {
	Continue           *bool           `json:"continue"`
	StopReason         string          `json:"stopReason"`
	SuppressOutput     bool            `json:"suppressOutput"`
	SystemMessage      string          `json:"systemMessage"`
	Decision           string          `json:"decision"`
	Reason             string          `json:"reason"`
	HookSpecificOutput *specificAnswer `json:"hookSpecificOutput"`
}

type specificAnswer struct {
	HookEventName            string          `json:"hookEventName"`
	PermissionDecision       string          `json:"permissionDecision"`
	PermissionDecisionReason string          `json:"permissionDecisionReason"`
	UpdatedInput             json.RawMessage `json:"updatedInput"`
	AdditionalContext        string          `json:"additionalContext"`
}

// parseAnswer decodes stdout when it is one JSON object; anything else
// (plain text, garbage, a JSON array) is plain output, not a failure.
func parseAnswer(stdout string) (answer, bool) {
	var a answer
	if !strings.HasPrefix(stdout, "{") {
		return a, false
	}
	if err := json.Unmarshal([]byte(stdout), &a); err != nil {
		return answer{}, false
	}
	return a, true
}

// label shortens a command for messages.
func label(command string) string {
	command = strings.Join(strings.Fields(command), " ")
	if len(command) > 60 {
		command = command[:57] + "..."
	}
	return "`" + command + "`"
}
