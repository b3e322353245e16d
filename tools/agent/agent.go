// Package agent holds the Agent tool: it hands one task to a sub-agent and
// returns the sub-agent's final report. A SubagentSpawner runs the
// sub-agent: the client's own model through toolhost/runAgent when the
// editor hosts agents (tools.AgentRunner), else a built-in loop against the
// OpenAI-compatible chat-completions endpoint of the agent.* settings, whose
// tool calls go through the session's pipeline, so permissions, hooks and
// dialogs apply to them as to any other call. With run_in_background the
// sub-agent runs as a background task (TaskOutput, TaskStop).
package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/toolhost/toolhost/internal/chatapi"
	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/engine"
	"github.com/toolhost/toolhost/tools/tasks"
)

//go:embed agent.md
var agentDescription string

// Input is the input of Agent, in Claude Code's shape.
type Input struct {
	Description  string `json:"description" jsonschema:"A title of three to five words for the task, shown to the user."`
	Prompt       string `json:"prompt" jsonschema:"The whole task for the sub-agent: what to do, what to look at, what to report. It sees nothing of your conversation, so include every detail it needs."`
	SubagentType string `json:"subagent_type,omitempty" jsonschema:"The kind of agent to run, when the host defines kinds (e.g. general-purpose). Omit it for a general agent."`
	Model        string `json:"model,omitempty" jsonschema:"A model family for the sub-agent, when the host lets you choose; the built-in runner always uses its configured model." schema:"enum=sonnet|opus|haiku|fable"`
	Effort       string `json:"effort,omitempty" jsonschema:"How hard the sub-agent should think. Set it only when the user asked for a particular effort." schema:"enum=low|medium|high|xhigh|max"`
	// RunInBackground starts the sub-agent as a background task; omitted
	// or false waits for its report.
	RunInBackground bool   `json:"run_in_background,omitempty" jsonschema:"Start the sub-agent as a background task and get its task id at once; read its report later with TaskOutput. Omitted or false: wait for the report."`
	Name            string `json:"name,omitempty" jsonschema:"A name for the sub-agent, passed to hosts that address agents by name." schema:"pattern=^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$"`
	TeamName        string `json:"team_name,omitempty" jsonschema:"Deprecated and ignored."`
	Mode            string `json:"mode,omitempty" jsonschema:"Deprecated and ignored: the sub-agent's calls follow this session's permission mode." schema:"enum=acceptEdits|auto|bypassPermissions|default|dontAsk|plan"`
	Isolation       string `json:"isolation,omitempty" jsonschema:"worktree: run the sub-agent in a git worktree of its own (an isolated copy of the repository, kept when it changed something). remote is not supported." schema:"enum=worktree|remote"`
}

var agentSchema = tools.SchemaOf[Input](nil)

// DefaultMaxTurns is how many model replies the built-in runner waits for
// before it gives up on a sub-agent.
const DefaultMaxTurns = 25

// BackgroundTimeout stops a background sub-agent that runs longer.
const BackgroundTimeout = time.Hour

// Options configure the Agent tool.
type Options struct {
	// Settings returns the current settings (agent.endpoint, agent.model,
	// agent.apiKeyEnv), read on every call.
	Settings func() *settings.Settings
	// Pipeline returns the session's pipeline, through which the built-in
	// runner makes the sub-agent's tool calls. It is a function because the
	// pipeline is built after the registry the tool is registered in; nil,
	// or a nil pipeline, leaves only the client's runner.
	Pipeline func() *engine.Pipeline
	// Tasks runs background sub-agents; nil refuses run_in_background.
	Tasks *tasks.Manager
	// Root returns the workspace root the sub-agent is told about.
	Root func() string
	// HTTP sends the built-in runner's requests; nil means a client of its own.
	HTTP *http.Client
	// MaxTurns caps the built-in runner's model replies (default DefaultMaxTurns).
	MaxTurns int
	// Isolated builds the pipeline of a sub-agent that runs in a worktree
	// of its own (isolation "worktree"); nil refuses isolation.
	Isolated IsolatedPipeline
	// PostOffice, when set, gives a named background sub-agent of the
	// built-in runner a mailbox that SendMessage reaches.
	PostOffice PostOffice
	Log        *slog.Logger
}

// Agent runs one task in a sub-agent and returns its report.
type Agent struct {
	opts Options
}

// New returns the Agent tool.
func New(opts Options) *Agent {
	if opts.Settings == nil {
		opts.Settings = settings.Defaults
	}
	if opts.Pipeline == nil {
		opts.Pipeline = func() *engine.Pipeline { return nil }
	}
	if opts.Root == nil {
		opts.Root = func() string { return "" }
	}
	if opts.HTTP == nil {
		opts.HTTP = &http.Client{}
	}
	if opts.MaxTurns <= 0 {
		opts.MaxTurns = DefaultMaxTurns
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	return &Agent{opts: opts}
}

func (*Agent) Name() string                 { return "Agent" }
func (*Agent) Description() string          { return agentDescription }
func (*Agent) InputSchema() json.RawMessage { return agentSchema.JSON() }
func (*Agent) SideEffect() tools.SideEffect { return tools.SideEffectSpawns }

// Docs implements tools.Documented.
func (*Agent) Docs() tools.Docs {
	return tools.Docs{
		Short: "Hand a self-contained task to a sub-agent and get its final report.",
		Long: "Who runs the sub-agent: the editor, when it declares `capabilities.experimental.toolhost.runAgent` " +
			"(toolhost sends `toolhost/runAgent` with the input and the callId, and returns the client's answer); " +
			"else a built-in loop against the OpenAI-compatible chat-completions endpoint in `agent.endpoint` " +
			"(with `agent.model`, and `agent.apiKeyEnv` naming the variable that holds the key); else the call " +
			"fails saying how to enable it. The built-in loop sends the prompt with a system prompt asking for a " +
			"final report, offers every enabled tool except Agent and AskUserQuestion, runs the calls the model " +
			"asks for through the same pipeline as any other call (permission rules, prompts and hooks apply), " +
			"and stops at the first reply without tool calls, whose text is the result, or after 25 replies " +
			"(an error). It uses `subagent_type` only to name the sub-agent's role in its system prompt, ignores " +
			"`model`, `effort`, `name`, `team_name` and `mode`; `isolation: \"worktree\"` runs the built-in runner's sub-agent in a git worktree of its own (kept when it changed something, else removed), and `\"remote\"` is refused. `run_in_background: true` starts the sub-agent as a background task " +
			"(`agent-N`, stopped after an hour, by TaskStop or when the session ends) and returns its id; " +
			"TaskOutput returns the report once it is done. Omitted, the call waits for the report. Agent " +
			"calls in one toolhost/callTools batch run one after another; run them in the background to run " +
			"several at once.",
		Examples: []tools.Example{
			{Title: "Research a question across the code", Input: json.RawMessage(`{"description":"Find config loading","prompt":"Find where the settings files are read and merged. Report the functions involved with file paths and line numbers, and the order in which layers override each other."}`)},
			{Title: "Run in the background", Input: json.RawMessage(`{"description":"Audit error messages","prompt":"List every error message in tools/ that does not say what to do next, with its file and line.","run_in_background":true}`)},
		},
	}
}

// Precheck implements tools.Prechecker: an empty prompt, or no runner for
// the sub-agent, fails before the user is asked to approve the call.
func (a *Agent) Precheck(_ context.Context, host tools.Host, input json.RawMessage) *tools.Result {
	var in Input
	if err := json.Unmarshal(input, &in); err != nil {
		return tools.ErrorResult("the input of Agent is not valid (%v); send {\"description\": \"...\", \"prompt\": \"...\"}.", err)
	}
	if strings.TrimSpace(in.Prompt) == "" {
		return tools.ErrorResult("prompt is empty. Write the whole task for the sub-agent in prompt.")
	}
	if host == nil {
		host = tools.NoHost{}
	}
	_, res := a.spawner(host, in, false)
	return res
}

// Execute picks a spawner and runs the sub-agent, or starts it in the
// background.
func (a *Agent) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var in Input
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return tools.ErrorResult("the input of Agent is not valid (%v); send {\"description\": \"...\", \"prompt\": \"...\"}.", err), nil
	}
	if strings.TrimSpace(in.Prompt) == "" {
		return tools.ErrorResult("prompt is empty. Write the whole task for the sub-agent in prompt."), nil
	}
	host := call.Host
	if host == nil {
		host = tools.NoHost{}
	}
	req := SpawnRequest{CallID: call.ID, Input: in, Raw: call.Input, Host: host, Progress: call.Progress}
	if in.RunInBackground {
		return a.background(req)
	}
	sp, res := a.spawner(host, in, false)
	if res != nil {
		return res, nil
	}
	if req.Progress == nil {
		req.Progress = tools.NoProgress{}
	}
	text, err := sp.Spawn(ctx, req)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return spawnError(err), nil
	}
	r := tools.TextResult(text)
	r.Structured = Output{
		Status: "completed", AgentID: call.ID, Prompt: in.Prompt,
		Content: []tools.Content{{Type: "text", Text: text}},
	}
	return r, nil
}

// Output is the structured result of Agent: the fields of Claude Code's
// output that toolhost knows.
type Output struct {
	// Status is "completed", or "async_launched" for a background agent.
	Status      string          `json:"status"`
	AgentID     string          `json:"agentId,omitempty"`
	Description string          `json:"description,omitempty"`
	Prompt      string          `json:"prompt"`
	Content     []tools.Content `json:"content,omitempty"`
}

// spawner chooses who runs the sub-agent: the client when it hosts agents,
// else the built-in loop when an endpoint is set. wantMessages puts the
// built-in loop first when it is configured, since only it takes messages.
// Without either runner it returns the error result saying how to enable
// Agent.
func (a *Agent) spawner(host tools.Host, in Input, wantMessages bool) (SubagentSpawner, *tools.Result) {
	cfg := a.opts.Settings().Agent
	p := a.opts.Pipeline()
	loopReady := cfg.Endpoint != "" && p != nil
	if r, ok := host.(tools.AgentRunner); ok && r.CanRunAgent() && !(wantMessages && loopReady) {
		return ClientSpawner{}, nil
	}
	if cfg.Endpoint == "" || p == nil {
		return nil, tools.ErrorResult("no sub-agent runner is available: this editor does not run agents itself, and no model endpoint is configured. " +
			"To enable Agent, set agent.endpoint (an OpenAI-compatible chat-completions URL) and agent.model in .toolhost/settings.json " +
			"(agent.apiKeyEnv names the environment variable holding the API key), or use an editor that hosts agents " +
			"(capabilities.experimental.toolhost.runAgent). Until then, do the task yourself with the other tools.")
	}
	loop := Loop{
		Agent:    cfg,
		Pipeline: p,
		Client:   chatapi.Client{HTTP: a.opts.HTTP},
		MaxTurns: a.opts.MaxTurns,
		Root:     a.opts.Root(),
		Log:      a.opts.Log,
	}
	switch {
	case in.Isolation == "worktree" && a.opts.Isolated != nil:
		return &isolatedLoop{loop: loop, root: loop.Root, build: a.opts.Isolated,
			trusted: a.opts.Settings().Trust.Trusted(loop.Root)}, nil
	case in.Isolation != "":
		return nil, tools.ErrorResult("isolation %q is not supported by toolhost's built-in sub-agent runner (it supports \"worktree\" in a git repository); call Agent again without it.", in.Isolation)
	}
	return &loop, nil
}

// ErrNoRunner means neither the editor nor the built-in loop can run a
// sub-agent; its text says how to enable one.
type ErrNoRunner struct{ Result *tools.Result }

func (e *ErrNoRunner) Error() string { return strings.TrimPrefix(e.Result.Text(), "Error: ") }

// Started is a sub-agent started in the background.
type Started struct {
	Task *tasks.Task
	// Messages reports whether SendMessage reaches it (the built-in runner
	// with a post office; the editor's runner cannot take messages).
	Messages bool
}

// Start runs a sub-agent as a background task. open, when set and the
// built-in runner runs it, gives it a mailbox (a team member's, or one from
// the PostOffice for a named agent); the task's output is passed to open so
// the mailbox can write to it. The mailbox is closed when the task ends.
func (a *Agent) Start(host tools.Host, callID string, in Input, open func(out io.Writer) (Mailbox, func(), error)) (*Started, error) {
	if host == nil {
		host = tools.NoHost{}
	}
	if a.opts.Tasks == nil {
		return nil, errors.New("background agents are not available in this session")
	}
	// A caller that gives a mailbox (a team) wants its members to take
	// messages, which only the built-in runner can: it runs them when the
	// user configured an endpoint, even in an editor that runs agents.
	sp, res := a.spawner(host, in, open != nil)
	if res != nil {
		return nil, &ErrNoRunner{Result: res}
	}
	raw, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	// The call's progress ends when the starting call returns; the task
	// reports nothing but its result.
	req := SpawnRequest{CallID: callID, Input: in, Raw: raw, Host: host, Progress: tools.NoProgress{}}
	_, builtin := sp.(*Loop)
	if open == nil && builtin && in.Name != "" && a.opts.PostOffice != nil {
		open = func(out io.Writer) (Mailbox, func(), error) { return a.opts.PostOffice.Open(in.Name, out) }
	}
	started := &Started{Messages: builtin && open != nil}
	spec := tasks.Spec{Kind: "agent", Command: in.Description, Timeout: BackgroundTimeout, Notify: host.Notify}
	// The mailbox is opened before the task starts so that a name already
	// in use fails the call; its output is the task's, set once it runs.
	var out lazyWriter
	var closeBox func()
	if started.Messages {
		mb, closeFn, err := open(&out)
		if err != nil {
			return nil, err
		}
		req.Mailbox, closeBox = mb, closeFn
	}
	t, err := a.opts.Tasks.StartFunc(spec, func(ctx context.Context, w io.Writer) error {
		out.set(w)
		if closeBox != nil {
			defer closeBox()
		}
		text, err := sp.Spawn(ctx, req)
		if err != nil {
			if ctx.Err() == nil {
				_, _ = io.WriteString(w, spawnError(err).Text())
			}
			return err
		}
		_, err = io.WriteString(w, text)
		return err
	})
	if err != nil {
		if closeBox != nil {
			closeBox()
		}
		return nil, err
	}
	started.Task = t
	return started, nil
}

// background starts the sub-agent as a task and returns its id.
func (a *Agent) background(req SpawnRequest) (*tools.Result, error) {
	if a.opts.Tasks == nil {
		return tools.ErrorResult("background agents are not available in this session; call Agent again without run_in_background."), nil
	}
	st, err := a.Start(req.Host, req.CallID, req.Input, nil)
	var noRunner *ErrNoRunner
	if errors.As(err, &noRunner) {
		return noRunner.Result, nil
	}
	if err != nil {
		return tools.ErrorResult("could not start the background agent: %v.", err), nil
	}
	t := st.Task
	r := tools.TextResult(fmt.Sprintf("Started the sub-agent %q as background task %s. Get its report with TaskOutput (task_id %q) once it is done, or stop it with TaskStop. It is stopped after %s or when the session ends.",
		req.Input.Description, t.ID(), t.ID(), BackgroundTimeout))
	r.Structured = Output{Status: "async_launched", AgentID: t.ID(), Description: req.Input.Description, Prompt: req.Input.Prompt}
	return r, nil
}

// spawnError is the result of a sub-agent that did not report: the client's
// own error text as it sent it, else the spawner's error.
func spawnError(err error) *tools.Result {
	var reported *ReportedError
	if errors.As(err, &reported) {
		text := strings.TrimSpace(reported.Text)
		if !strings.HasPrefix(text, "Error: ") {
			text = "Error: " + text
		}
		return &tools.Result{IsError: true, Content: []tools.Content{{Type: "text", Text: text}}}
	}
	return tools.ErrorResult("the sub-agent did not finish: %v", err)
}
