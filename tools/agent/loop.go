package agent

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/toolhost/toolhost/internal/chatapi"
	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/engine"
)

// requestTimeout bounds one request to the chat-completions endpoint.
const requestTimeout = 5 * time.Minute

// excluded are the tools a sub-agent of the built-in runner is not given:
// no agents or teams of its own, and no questions to the user.
var excluded = map[string]bool{"agent": true, "askuserquestion": true, "teamcreate": true, "teamdelete": true}

// Loop is the built-in runner: a conversation with an OpenAI-compatible
// chat-completions endpoint whose tool calls run through Pipeline.
type Loop struct {
	Agent    settings.Agent
	Pipeline *engine.Pipeline
	Client   chatapi.Client
	// MaxTurns caps the model's replies (default DefaultMaxTurns).
	MaxTurns int
	// Root is the workspace root the sub-agent is told about.
	Root string
	Log  *slog.Logger
}

// Spawn runs the conversation: send, run the tool calls of the reply and
// append their results, repeat until a reply asks for no tool, whose text
// is the report.
func (l *Loop) Spawn(ctx context.Context, req SpawnRequest) (string, error) {
	maxTurns := l.MaxTurns
	if maxTurns <= 0 {
		maxTurns = DefaultMaxTurns
	}
	progress := req.Progress
	if progress == nil {
		progress = tools.NoProgress{}
	}
	defs := l.definitions(req.Host)
	messages := []chatapi.Message{
		{Role: "system", Content: l.systemPrompt(req.Input)},
		{Role: "user", Content: req.Input.Prompt},
	}
	if req.Input.Name != "" {
		ctx = WithName(ctx, req.Input.Name)
	}
	calls := 0
	for turn := 1; turn <= maxTurns; turn++ {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		if req.Mailbox != nil {
			messages = appendUser(messages, req.Mailbox.Take())
		}
		choice, err := l.complete(ctx, messages, defs)
		if err != nil {
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			return "", fmt.Errorf("the model endpoint failed after %d tool calls: %w. Check agent.endpoint, agent.model and agent.apiKeyEnv in .toolhost/settings.json, or retry later; or do the task yourself", calls, err)
		}
		reply := choice.Message
		if len(reply.ToolCalls) == 0 {
			report := strings.TrimSpace(reply.Content)
			if req.Mailbox != nil {
				// A team member waits for messages instead of ending; each
				// wake-up gets a fresh budget of turns.
				if next, more := req.Mailbox.Idle(ctx, report); more {
					messages = appendUser(append(messages, chatapi.Message{Role: "assistant", Content: reply.Content}), next)
					turn = 0
					continue
				}
				if err := ctx.Err(); err != nil {
					return "", err
				}
			}
			if report == "" {
				return "", fmt.Errorf("the sub-agent ended after %d tool calls without a report (the model's last reply was empty). Call Agent again with a prompt that says what to report, or do the task yourself", calls)
			}
			return report, nil
		}
		reply.Role = "assistant"
		for i := range reply.ToolCalls {
			if reply.ToolCalls[i].ID == "" {
				reply.ToolCalls[i].ID = "call_" + strconv.Itoa(turn) + "_" + strconv.Itoa(i+1)
			}
			if reply.ToolCalls[i].Type == "" {
				reply.ToolCalls[i].Type = "function"
			}
		}
		messages = append(messages, reply)
		results, err := l.runCalls(ctx, req.Host, reply.ToolCalls, progress, turn)
		if err != nil {
			return "", err
		}
		calls += len(reply.ToolCalls)
		messages = append(messages, results...)
	}
	return "", fmt.Errorf("the sub-agent did not finish within %d turns (%d tool calls), so it was stopped without a report. Split the task into smaller ones with narrower prompts, or do it yourself", maxTurns, calls)
}

// appendUser appends texts as user messages.
func appendUser(messages []chatapi.Message, texts []string) []chatapi.Message {
	for _, t := range texts {
		messages = append(messages, chatapi.Message{Role: "user", Content: t})
	}
	return messages
}

// complete sends one request within requestTimeout.
func (l *Loop) complete(ctx context.Context, messages []chatapi.Message, defs []any) (*chatapi.Choice, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	return l.Client.Complete(ctx, chatapi.Endpoint(l.Agent), chatapi.Request{Model: l.Agent.Model, Messages: messages, Tools: defs})
}

// runCalls runs one reply's tool calls as a batch through the pipeline and
// returns their results as "tool" messages, in order. A tool the sub-agent
// may not use, and arguments that are not a JSON object, are answered with
// an error without running anything.
func (l *Loop) runCalls(ctx context.Context, host tools.Host, tcs []chatapi.ToolCall, progress tools.Progress, turn int) ([]chatapi.Message, error) {
	out := make([]chatapi.Message, len(tcs))
	var reqs []engine.Request
	var slots []int
	var names []string
	for i, tc := range tcs {
		out[i] = chatapi.Message{Role: "tool", ToolCallID: tc.ID}
		if !l.allowed(tc.Function.Name) {
			out[i].Content = fmt.Sprintf("Error: the tool %s is not available to a sub-agent. Use the tools you were given.", tc.Function.Name)
			continue
		}
		input, err := tc.Function.Input()
		if err != nil {
			out[i].Content = fmt.Sprintf("Error: the arguments of %s could not be read (%v). Send them as a JSON object matching the tool's parameters.", tc.Function.Name, err)
			continue
		}
		reqs = append(reqs, engine.Request{CallID: tc.ID, Name: tc.Function.Name, Input: input})
		slots = append(slots, i)
		names = append(names, tc.Function.Name)
	}
	if len(reqs) == 0 {
		return out, nil
	}
	progress.Report(fmt.Sprintf("turn %d: %s", turn, strings.Join(names, ", ")))
	resps := l.Pipeline.CallBatch(ctx, host, reqs)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for j, resp := range resps {
		i := slots[j]
		out[i].Content = resultText(resp.Result)
		if resp.StopReason != "" {
			return nil, fmt.Errorf("a hook stopped the sub-agent after its %s call: %s", reqs[j].Name, resp.StopReason)
		}
	}
	return out, nil
}

// resultText is a tool result as the endpoint receives it: text only.
func resultText(r *tools.Result) string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range r.Content {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		switch c.Type {
		case "text":
			b.WriteString(c.Text)
		default:
			fmt.Fprintf(&b, "[%s content omitted: only text reaches the sub-agent]", c.Type)
		}
	}
	if b.Len() == 0 && !r.IsError {
		return "(no output)"
	}
	return b.String()
}

// allowed reports whether the sub-agent may call the tool name (aliases
// count as the tool they stand for).
func (l *Loop) allowed(name string) bool {
	e, ok := l.Pipeline.Registry.Lookup(name)
	if !ok {
		// The pipeline answers unknown names with its "did you mean".
		return true
	}
	return !excluded[strings.ToLower(e.Tool.Name())] && e.Category != tools.CategoryAgent
}

// definitions are the tools offered to the sub-agent, in the OpenAI
// format: those host, which runs its calls, can serve.
func (l *Loop) definitions(host tools.Host) []any {
	var defs []any
	for _, e := range l.Pipeline.Registry.Entries(false) {
		if excluded[strings.ToLower(e.Tool.Name())] || e.Category == tools.CategoryAgent || tools.Unservable(e.Tool, host) != "" {
			continue
		}
		d, err := tools.Definition(e.Tool, tools.FormatOpenAI)
		if err != nil {
			if l.Log != nil {
				l.Log.Warn("a tool was left out of the sub-agent's tools", "tool", e.Tool.Name(), "err", err)
			}
			continue
		}
		defs = append(defs, d)
	}
	return defs
}

// systemPrompt tells the model it is a sub-agent with one task.
func (l *Loop) systemPrompt(in Input) string {
	var b strings.Builder
	b.WriteString("You are a sub-agent of a coding agent. You were given one task, in the next message; " +
		"nobody will answer questions or follow up, and the agent that started you sees only your final message. " +
		"Use the tools to do the task: read and search before you conclude, and check your work. " +
		"When you are done, answer without calling a tool, with a final report: what you found or changed, " +
		"with file paths and line numbers where they help, and anything left undone or uncertain.")
	if in.SubagentType != "" && !strings.EqualFold(in.SubagentType, "general-purpose") {
		fmt.Fprintf(&b, "\n\nYour role: %s.", in.SubagentType)
	}
	if in.Description != "" {
		fmt.Fprintf(&b, "\n\nThe task in short: %s.", strings.TrimSuffix(in.Description, "."))
	}
	if l.Root != "" {
		fmt.Fprintf(&b, "\n\nThe workspace root is %s; relative paths are resolved against it.", l.Root)
	}
	return b.String()
}
