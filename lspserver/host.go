package lspserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"go.lsp.dev/protocol"

	"github.com/toolhost/toolhost/internal/rpcfault"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

// editorHost is the tools.Host of one request: it reaches the editor over
// the connection, and cancelCall ends the request when the user cancels its
// progress in the editor.
type editorHost struct {
	srv        *server
	cancelCall func()
}

var (
	_ tools.Host           = (*editorHost)(nil)
	_ tools.AgentRunner    = (*editorHost)(nil)
	_ tools.ChangeReviewer = (*editorHost)(nil)
)

// callHost returns the Host for a request whose context cancel is given.
func (s *server) callHost(cancel func()) *editorHost {
	return &editorHost{srv: s, cancelCall: cancel}
}

// CanApplyEdit reports the client's workspace.applyEdit capability.
func (h *editorHost) CanApplyEdit() bool { return h.srv.capabilities().Workspace.ApplyEdit }

// SavesAppliedEdits reports experimental.toolhost.savesAppliedEdits.
func (h *editorHost) SavesAppliedEdits() bool {
	return h.srv.capabilities().Toolhost.SavesAppliedEdits
}

// ApplyEdit sends workspace/applyEdit. The answer is decoded into
// workspace's own result struct: protocol's client expects a bare bool.
func (h *editorHost) ApplyEdit(ctx context.Context, params *workspace.ApplyWorkspaceEditParams) (*workspace.ApplyWorkspaceEditResult, error) {
	if !h.CanApplyEdit() {
		return nil, workspace.ErrNoEditor
	}
	var res workspace.ApplyWorkspaceEditResult
	if err := h.srv.callClient(ctx, "workspace/applyEdit", params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// CanReviewChanges reports experimental.toolhost.reviewChanges.
func (h *editorHost) CanReviewChanges() bool { return h.srv.capabilities().Toolhost.ReviewChanges }

// ReviewChanges sends toolhost/reviewChanges; a null answer is nil (the
// user dismissed the review).
func (h *editorHost) ReviewChanges(ctx context.Context, req tools.ReviewRequest) (*tools.ReviewResponse, error) {
	var res *tools.ReviewResponse
	if err := h.srv.callClient(ctx, "toolhost/reviewChanges", req, &res); err != nil {
		return nil, err
	}
	return res, nil
}

// Labels of the permission prompt's actions in window/showMessageRequest.
const (
	actionAllow       = "Allow"
	actionAllowAlways = "Always allow"
	actionDeny        = "Deny"
)

// maxPromptPreview bounds the preview shown in a showMessageRequest.
const maxPromptPreview = 2000

// RequestPermission asks through toolhost/requestPermission when the client
// declares it, else with window/showMessageRequest, else not at all
// (ErrCannotAsk). A dismissed prompt (a null answer) is ErrDismissed, which
// denies.
func (h *editorHost) RequestPermission(ctx context.Context, req tools.PermissionRequest) (tools.PermissionResponse, error) {
	caps := h.srv.capabilities()
	if caps.Toolhost.RequestPermission {
		var res *tools.PermissionResponse
		if err := h.srv.callClient(ctx, "toolhost/requestPermission", req, &res); err != nil {
			return tools.PermissionResponse{}, err
		}
		if res == nil {
			return tools.PermissionResponse{}, tools.ErrDismissed
		}
		if !res.Consented() && res.Decision != tools.DecisionDeny {
			// Never read an unknown answer as consent.
			res.Message = strings.TrimSpace(fmt.Sprintf("the client answered %q, which is not allow, allowAlways or deny. %s", res.Decision, res.Message))
			res.Decision = tools.DecisionDeny
		}
		return *res, nil
	}
	if !caps.canShowMessageRequest() {
		return tools.PermissionResponse{}, tools.ErrCannotAsk
	}
	msg := req.Title
	if req.Preview != nil && req.Preview.Text != "" {
		msg += "\n\n" + truncate(req.Preview.Text, maxPromptPreview)
	}
	kind := protocol.MessageTypeInfo
	if req.Risk == tools.RiskHigh || req.Risk == tools.RiskCritical {
		kind = protocol.MessageTypeWarning
	}
	choice, err := h.showMessageRequest(ctx, kind, msg, []string{actionAllow, actionAllowAlways, actionDeny})
	if err != nil {
		return tools.PermissionResponse{}, err
	}
	switch choice {
	case actionAllow:
		return tools.PermissionResponse{Decision: tools.DecisionAllow}, nil
	case actionAllowAlways:
		return tools.PermissionResponse{Decision: tools.DecisionAllowAlways}, nil
	case "":
		// Closing the dialog denies; ErrDismissed tells the checker why.
		return tools.PermissionResponse{}, tools.ErrDismissed
	}
	return tools.PermissionResponse{Decision: tools.DecisionDeny}, nil
}

// showMessageRequest shows a message with actions and returns the chosen
// title ("" when dismissed). A client without the method cannot ask.
func (h *editorHost) showMessageRequest(ctx context.Context, kind protocol.MessageType, message string, actions []string) (string, error) {
	params := protocol.ShowMessageRequestParams{Type: kind, Message: message}
	for _, a := range actions {
		params.Actions = append(params.Actions, protocol.MessageActionItem{Title: a})
	}
	var res *protocol.MessageActionItem
	if err := h.srv.callClient(ctx, "window/showMessageRequest", params, &res); err != nil {
		var rpcErr *jsonrpc.Error
		if errors.As(err, &rpcErr) && rpcErr.Code == rpcfault.CodeMethodNotFound {
			return "", tools.ErrCannotAsk
		}
		return "", err
	}
	if res == nil {
		return "", nil
	}
	return res.Title, nil
}

// AskUserQuestion asks through toolhost/askUserQuestion when the client
// declares it (an error reply or no answers means dismissed), else one
// window/showMessageRequest per question, else not at all (ErrCannotAsk).
func (h *editorHost) AskUserQuestion(ctx context.Context, callID string, questions []tools.Question) (map[string]string, error) {
	caps := h.srv.capabilities()
	if caps.Toolhost.AskUserQuestion {
		var res *struct {
			Answers map[string]string `json:"answers"`
		}
		params := map[string]any{"questions": questions}
		if callID != "" {
			// Named in the $/cancelRequest when the call is cancelled.
			params["callId"] = callID
		}
		err := h.srv.callClient(ctx, "toolhost/askUserQuestion", params, &res)
		var rpcErr *jsonrpc.Error
		switch {
		case errors.As(err, &rpcErr):
			// The client's way of saying the dialog was closed.
			return nil, tools.ErrDismissed
		case err != nil:
			return nil, err
		case res == nil || len(res.Answers) == 0:
			return nil, tools.ErrDismissed
		}
		return res.Answers, nil
	}
	if !caps.canShowMessageRequest() {
		return nil, tools.ErrCannotAsk
	}
	answers := make(map[string]string, len(questions))
	for _, q := range questions {
		var b strings.Builder
		if q.Header != "" {
			b.WriteString(q.Header + ": ")
		}
		b.WriteString(q.Question)
		labels := make([]string, 0, len(q.Options))
		for _, o := range q.Options {
			labels = append(labels, o.Label)
			if o.Description != "" {
				fmt.Fprintf(&b, "\n• %s — %s", o.Label, o.Description)
			}
		}
		choice, err := h.showMessageRequest(ctx, protocol.MessageTypeInfo, b.String(), labels)
		if err != nil {
			return nil, err
		}
		if choice == "" {
			return nil, tools.ErrDismissed
		}
		answers[q.Question] = choice
	}
	return answers, nil
}

// Notify sends a notification to the client.
func (h *editorHost) Notify(_ context.Context, method string, params any) error {
	return h.srv.notify(method, params)
}

// CanRunAgent reports experimental.toolhost.runAgent.
func (h *editorHost) CanRunAgent() bool { return h.srv.capabilities().Toolhost.RunAgent }

// RunAgent sends toolhost/runAgent: the Agent tool's input with the call's
// callId. The answer is {content: [{type: "text", text}], isError?}; an
// answer without content, or a null one, is an error result saying the
// client gave no report.
func (h *editorHost) RunAgent(ctx context.Context, callID string, input json.RawMessage) (*tools.Result, error) {
	params := map[string]any{}
	if err := json.Unmarshal(input, &params); err != nil {
		return nil, fmt.Errorf("toolhost/runAgent: the Agent input is not an object: %w", err)
	}
	if callID != "" {
		params["callId"] = callID
	}
	var res *tools.Result
	if err := h.srv.callClient(ctx, "toolhost/runAgent", params, &res); err != nil {
		return nil, err
	}
	if res == nil || len(res.Content) == 0 {
		return tools.ErrorResult("the editor ran the sub-agent but sent no report back. Do the task yourself, or ask the user what the sub-agent found."), nil
	}
	return res, nil
}

var _ tools.LanguageIntel = (*editorHost)(nil)

// CanReportDiagnostics reports experimental.toolhost.diagnostics.
func (h *editorHost) CanReportDiagnostics() bool { return h.srv.capabilities().Toolhost.Diagnostics }

// Diagnostics sends toolhost/diagnostics. A null answer is no diagnostics.
func (h *editorHost) Diagnostics(ctx context.Context, req tools.DiagnosticsRequest) ([]tools.FileDiagnostics, error) {
	if !h.CanReportDiagnostics() {
		return nil, tools.ErrNoLanguageIntel
	}
	var res *struct {
		Items []tools.FileDiagnostics `json:"items"`
	}
	if err := h.srv.callClient(ctx, "toolhost/diagnostics", req, &res); err != nil {
		return nil, err
	}
	if res == nil {
		return nil, nil
	}
	return res.Items, nil
}

// CanAnswerLanguageFeatures reports experimental.toolhost.languageFeatures.
func (h *editorHost) CanAnswerLanguageFeatures() bool {
	return h.srv.capabilities().Toolhost.LanguageFeatures
}

// LanguageFeature sends toolhost/languageFeature and returns the answer as
// it came (LSP's shape; null when the servers know nothing there).
func (h *editorHost) LanguageFeature(ctx context.Context, req tools.LanguageFeatureRequest) (json.RawMessage, error) {
	if !h.CanAnswerLanguageFeatures() {
		return nil, tools.ErrNoLanguageIntel
	}
	var res json.RawMessage
	if err := h.srv.callClient(ctx, "toolhost/languageFeature", req, &res); err != nil {
		return nil, err
	}
	return res, nil
}
