package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

// progressSendTimeout bounds one progress notification: Report must not
// block a tool on a client that stopped reading.
const progressSendTimeout = time.Second

// host is the tools.Host of one MCP tools/call. An MCP client has no
// editor, so changes are written to disk (atomically, by the workspace);
// prompts and questions use elicitation when the client declared it.
type host struct {
	session *sdk.ServerSession
	token   any
	log     *slog.Logger
}

func newHost(ss *sdk.ServerSession, progressToken any, log *slog.Logger) *host {
	return &host{session: ss, token: progressToken, log: log}
}

func (*host) CanApplyEdit() bool      { return false }
func (*host) SavesAppliedEdits() bool { return false }
func (*host) ApplyEdit(context.Context, *workspace.ApplyWorkspaceEditParams) (*workspace.ApplyWorkspaceEditResult, error) {
	return nil, workspace.ErrNoEditor
}

// canElicit reports whether the client declared form elicitation.
func (h *host) canElicit() bool {
	if h.session == nil {
		return false
	}
	p := h.session.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
		return false
	}
	e := p.Capabilities.Elicitation
	return e.Form != nil || e.URL == nil // no modes named means form
}

// decisionField is the one field of a permission elicitation.
const decisionField = "decision"

// RequestPermission asks through elicitation: the user picks allow, allow
// always or deny. Declining or cancelling the form denies.
func (h *host) RequestPermission(ctx context.Context, req tools.PermissionRequest) (tools.PermissionResponse, error) {
	if !h.canElicit() {
		return tools.PermissionResponse{}, tools.ErrCannotAsk
	}
	res, err := h.session.Elicit(ctx, &sdk.ElicitParams{
		Mode:    "form",
		Message: permissionMessage(req),
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				decisionField: map[string]any{
					"type":        "string",
					"title":       "Decision",
					"description": "Allow this call once, allow calls like it for the rest of the session, or deny it.",
					"enum":        []string{tools.DecisionAllow, tools.DecisionAllowAlways, tools.DecisionDeny},
					"enumNames":   []string{"Allow", "Always allow", "Deny"},
				},
			},
			"required": []string{decisionField},
		},
	})
	if err != nil {
		if ctx.Err() != nil {
			return tools.PermissionResponse{}, ctx.Err()
		}
		return tools.PermissionResponse{}, fmt.Errorf("asking the MCP client for permission: %w", err)
	}
	// Declining or cancelling the form denies. Message stays empty: it is
	// for words the user typed, and a form has none.
	if res.Action != "accept" {
		return tools.PermissionResponse{Decision: tools.DecisionDeny}, nil
	}
	decision, _ := res.Content[decisionField].(string)
	if ans := (tools.PermissionResponse{Decision: decision}); ans.Consented() {
		return ans, nil
	}
	return tools.PermissionResponse{Decision: tools.DecisionDeny}, nil
}

// permissionMessage is the text of a permission form: what runs and what it
// will do.
func permissionMessage(req tools.PermissionRequest) string {
	var b strings.Builder
	title := req.Title
	if title == "" {
		title = "Allow " + req.ToolName + "?"
	}
	b.WriteString(title)
	fmt.Fprintf(&b, "\n\nTool: %s (risk: %s)", req.ToolName, req.Risk)
	if req.Preview != nil && req.Preview.Text != "" {
		fmt.Fprintf(&b, "\n\n%s:\n%s", req.Preview.Kind, req.Preview.Text)
	} else if in, err := json.MarshalIndent(req.Input, "", "  "); err == nil && string(in) != "null" {
		fmt.Fprintf(&b, "\n\nInput:\n%s", in)
	}
	return b.String()
}

// AskUserQuestion asks every question in one form: a single-choice question
// is a string with the options as its enum, a multi-select one an array of
// them (answered as labels joined by ", ").
func (h *host) AskUserQuestion(ctx context.Context, _ string, questions []tools.Question) (map[string]string, error) {
	if !h.canElicit() {
		return nil, tools.ErrCannotAsk
	}
	props := map[string]any{}
	var required []string
	var header strings.Builder
	for i, q := range questions {
		key := fmt.Sprintf("q%d", i+1)
		labels := make([]string, len(q.Options))
		for j, o := range q.Options {
			labels[j] = o.Label
		}
		desc := q.Question
		for _, o := range q.Options {
			if o.Description != "" {
				desc += "\n- " + o.Label + ": " + o.Description
			}
		}
		if q.MultiSelect {
			props[key] = map[string]any{"type": "array", "title": q.Header, "description": desc,
				"items": map[string]any{"type": "string", "enum": labels}}
		} else {
			props[key] = map[string]any{"type": "string", "title": q.Header, "description": desc, "enum": labels}
		}
		required = append(required, key)
		fmt.Fprintf(&header, "%d. %s\n", i+1, q.Question)
	}
	res, err := h.session.Elicit(ctx, &sdk.ElicitParams{
		Mode:            "form",
		Message:         strings.TrimSpace(header.String()),
		RequestedSchema: map[string]any{"type": "object", "properties": props, "required": required},
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("asking the MCP client: %w", err)
	}
	if res.Action != "accept" {
		return nil, tools.ErrDismissed
	}
	answers := map[string]string{}
	for i, q := range questions {
		switch v := res.Content[fmt.Sprintf("q%d", i+1)].(type) {
		case string:
			answers[q.Question] = v
		case []any:
			var parts []string
			for _, p := range v {
				parts = append(parts, fmt.Sprint(p))
			}
			answers[q.Question] = strings.Join(parts, ", ")
		}
	}
	return answers, nil
}

// BeginProgress reports through notifications/progress when the client sent
// a progress token with the call; otherwise reports are dropped.
func (h *host) BeginProgress(ctx context.Context, title string, _ func()) tools.ProgressEnder {
	if h.token == nil || h.session == nil {
		return tools.NoProgress{}
	}
	return &progress{ctx: context.WithoutCancel(ctx), session: h.session, token: h.token, log: h.log}
}

// Notify drops toolhost's own notifications (todos, tasks): MCP has no
// place for them. They are logged for debugging.
func (h *host) Notify(_ context.Context, method string, _ any) error {
	h.log.Debug("notification not sent to the MCP client", "method", method)
	return nil
}

// progress sends one call's reports as MCP progress notifications with a
// growing progress count.
type progress struct {
	ctx     context.Context
	session *sdk.ServerSession
	token   any
	log     *slog.Logger

	mu    sync.Mutex
	count float64
	ended bool
}

func (p *progress) Report(message string) {
	p.mu.Lock()
	if p.ended {
		p.mu.Unlock()
		return
	}
	p.count++
	n := p.count
	p.mu.Unlock()
	ctx, cancel := context.WithTimeout(p.ctx, progressSendTimeout)
	defer cancel()
	if err := p.session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: p.token, Progress: n, Message: message}); err != nil {
		p.log.Debug("progress notification failed", "err", err)
	}
}

func (p *progress) End(string) {
	p.mu.Lock()
	p.ended = true
	p.mu.Unlock()
}
