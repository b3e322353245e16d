package lspserver

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/session"
	"github.com/toolhost/toolhost/tools"
)

// maxApprovals bounds the checked calls kept for an approved callTool; the
// oldest is forgotten first.
const maxApprovals = 64

// approvals are the calls toolhost/checkPermission answered on this
// connection, by tool and canonical input. A toolhost/callTool with
// approved: true takes its call out: the editor showed toolhost's prompt
// (VS Code's agent mode shows it as the chat's confirmation) and the user
// agreed, so the pipeline's prompt for exactly that input is answered
// without a second dialog, provided it is the prompt the editor showed: a
// call whose prompt says something else by then (a link in the workspace
// that now leads to another file outside) is asked about again.
type approvals struct {
	mu    sync.Mutex
	order []string
	// keys holds, for each call, the title of the prompt shown ("" when
	// the decision was allow and nothing was shown).
	keys map[string]string
}

// approvalKey identifies a call by tool name and input; inputs that differ
// only in spacing or key order are the same input.
func approvalKey(name string, input json.RawMessage) string {
	return name + "\x00" + canonicalJSON(input)
}

// canonicalJSON re-encodes v with sorted keys and numbers as written; a
// value that does not decode is kept as it is.
func canonicalJSON(v any) string {
	var raw []byte
	switch x := v.(type) {
	case json.RawMessage:
		raw = x
	case []byte:
		raw = x
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return ""
		}
		raw = b
	}
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v2 any
	if dec.Decode(&v2) != nil {
		return string(raw)
	}
	b, err := json.Marshal(v2)
	if err != nil {
		return string(raw)
	}
	return string(b)
}

// add remembers a checked call and the title of the prompt shown for it.
func (a *approvals) add(key, title string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.keys == nil {
		a.keys = map[string]string{}
	}
	if _, ok := a.keys[key]; ok {
		a.keys[key] = title
		return
	}
	a.keys[key] = title
	a.order = append(a.order, key)
	for len(a.order) > maxApprovals {
		delete(a.keys, a.order[0])
		a.order = a.order[1:]
	}
}

// take removes a checked call and reports whether it was there, with the
// title of the prompt shown for it.
func (a *approvals) take(key string) (title string, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if title, ok = a.keys[key]; !ok {
		return "", false
	}
	delete(a.keys, key)
	for i, k := range a.order {
		if k == key {
			a.order = append(a.order[:i], a.order[i+1:]...)
			break
		}
	}
	return title, true
}

// checkPermissionParams are toolhost/checkPermission's params.
type checkPermissionParams struct {
	Name   *string         `json:"name"`
	Input  json.RawMessage `json:"input"`
	CallID string          `json:"callId"`
}

// checkPermissionResult is toolhost/checkPermission's answer: the decision
// and, for "ask", the prompt the editor shows in its own words.
type checkPermissionResult struct {
	Decision    string         `json:"decision"`
	Reason      string         `json:"reason,omitempty"`
	Title       string         `json:"title,omitempty"`
	Risk        tools.Risk     `json:"risk,omitempty"`
	Preview     *tools.Preview `json:"preview,omitempty"`
	Suggestions []string       `json:"suggestions,omitempty"`
}

// checkPermission answers what the pipeline would decide about a call,
// running nothing, and remembers the call for an approved callTool.
func (s *server) checkPermission(ctx context.Context, sess *session.Session, raw json.RawMessage) (any, error) {
	var p checkPermissionParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if p.Name == nil || strings.TrimSpace(*p.Name) == "" {
		return nil, invalidParams("missing required field \"name\" (the tool whose call is checked)")
	}
	req := tools.Request{CallID: p.CallID, Name: *p.Name, Input: p.Input}
	host := s.callHost(nil)
	d, refused := sess.Pipeline.Decide(host, req)
	if refused != nil {
		// The call would fail before any permission is asked: the model
		// gets this error when it runs.
		return checkPermissionResult{Decision: string(tools.VerdictDeny), Reason: strings.TrimPrefix(refused.Text(), "Error: ")}, nil
	}
	res := checkPermissionResult{Decision: string(d.Verdict), Reason: d.Reason}
	if d.Verdict == tools.VerdictAsk {
		if prompt := sess.Pipeline.Prompt(ctx, host, req); prompt != nil {
			res.Title, res.Risk, res.Preview, res.Suggestions = prompt.Title, prompt.Risk, prompt.Preview, prompt.Suggestions
		}
	}
	if d.Verdict != tools.VerdictDeny {
		s.approvals.add(approvalKey(*p.Name, p.Input), res.Title)
	}
	return res, nil
}

// approvedHost answers the pipeline's prompt for the one approved call
// itself, once; any other prompt (a hook's, an input that differs, a
// title other than the one the editor showed) goes to the editor as usual.
type approvedHost struct {
	*editorHost
	key, title string

	mu   sync.Mutex
	used bool
}

func (h *approvedHost) RequestPermission(ctx context.Context, req tools.PermissionRequest) (tools.PermissionResponse, error) {
	h.mu.Lock()
	match := !h.used && req.Title == h.title && approvalKey(req.ToolName, toRaw(req.Input)) == h.key
	if match {
		h.used = true
	}
	h.mu.Unlock()
	if match {
		return tools.PermissionResponse{Decision: tools.DecisionAllow}, nil
	}
	return h.editorHost.RequestPermission(ctx, req)
}

// toRaw is a prompt's input as JSON.
func toRaw(v any) json.RawMessage {
	if raw, ok := v.(json.RawMessage); ok {
		return raw
	}
	b, _ := json.Marshal(v)
	return b
}
