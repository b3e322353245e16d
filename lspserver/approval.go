package lspserver

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/session"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/engine"
)

// maxApprovals bounds the checked calls kept for an approved callTool; the
// oldest is forgotten first.
const maxApprovals = 64

// approvals are the calls toolhost/checkPermission answered on this
// connection, by the opaque token it returned. A toolhost/callTool that
// presents a token with the same tool and input runs the call as checked:
// the editor showed toolhost's prompt (VS Code's agent mode shows it as
// the chat's confirmation) and the user agreed, so it is neither prepared
// nor asked again (engine.Approval says what is still looked at). A token
// is used once.
type approvals struct {
	mu sync.Mutex
	// next numbers the tokens of this connection.
	next  int
	order []string
	byKey map[string]approval
}

// approval is one checked call: its key (approvalKey) and the pipeline's
// prepared, decided call.
type approval struct {
	key      string
	approval *engine.Approval
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

// add remembers a checked call and returns its token.
func (a *approvals) add(key string, ap *engine.Approval) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.byKey == nil {
		a.byKey = map[string]approval{}
	}
	a.next++
	token := "approval-" + strconv.Itoa(a.next)
	a.byKey[token] = approval{key: key, approval: ap}
	a.order = append(a.order, token)
	for len(a.order) > maxApprovals {
		delete(a.byKey, a.order[0])
		a.order = a.order[1:]
	}
	return token
}

// take removes the checked call of token and returns it when it is the
// call of key; a token of another call is used up all the same.
func (a *approvals) take(token, key string) (*engine.Approval, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ap, ok := a.byKey[token]
	if !ok {
		return nil, false
	}
	delete(a.byKey, token)
	a.order = slices.DeleteFunc(a.order, func(t string) bool { return t == token })
	return ap.approval, ap.key == key
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
	// Approval is the token a toolhost/callTool of this same call
	// presents to run as checked, without a second prompt.
	Approval string `json:"approval,omitempty"`
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
	req := engine.Request{CallID: p.CallID, Name: *p.Name, Input: p.Input}
	checked, refused := sess.Pipeline.Check(ctx, s.callHost(nil), req)
	if refused != nil {
		// The call would fail before any permission is asked: the model
		// gets this error when it runs.
		return checkPermissionResult{Decision: string(tools.VerdictDeny), Reason: strings.TrimPrefix(refused.Text(), "Error: ")}, nil
	}
	d := checked.Decision
	res := checkPermissionResult{Decision: string(d.Verdict), Reason: d.Reason}
	if prompt := checked.Prompt; prompt != nil {
		res.Title, res.Risk, res.Preview, res.Suggestions = prompt.Title, prompt.Risk, prompt.Preview, prompt.Suggestions
	}
	if checked.Approval != nil {
		res.Approval = s.approvals.add(approvalKey(*p.Name, p.Input), checked.Approval)
	}
	return res, nil
}
