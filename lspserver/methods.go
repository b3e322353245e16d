package lspserver

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/toolhost/toolhost/internal/rpcfault"
	"github.com/toolhost/toolhost/session"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/engine"
)

// handleCall runs one request after initialize, in its own goroutine.
func (s *server) handleCall(ctx context.Context, call *jsonrpc.Request, fl *inflightCall) (any, error) {
	sess, params := s.session(), call.Params
	switch call.Method {
	case "toolhost/listTools":
		return listTools(sess, s.callHost(nil), params)
	case "toolhost/callTool":
		return s.callTool(ctx, sess, params, fl)
	case "toolhost/checkPermission":
		return s.checkPermission(ctx, sess, params)
	case "toolhost/callTools":
		return s.callTools(ctx, sess, params, fl)
	case "toolhost/setToolsEnabled":
		return setToolsEnabled(sess, s.callHost(nil), params)
	case "toolhost/setPermissionMode":
		return setPermissionMode(sess, params)
	case "toolhost/status":
		return s.status(ctx, sess, params)
	case "toolhost/changes":
		return listChanges(ctx, sess, params)
	case "toolhost/rewind":
		return s.rewind(ctx, sess, params, fl)
	}
	return nil, rpcfault.Errorf(rpcfault.CodeMethodNotFound,
		"method not found: %s (toolhost handles the LSP lifecycle and %s)", call.Method, strings.Join(Methods, ", "))
}

// listToolsParams are toolhost/listTools' params.
type listToolsParams struct {
	Format          string `json:"format"`
	IncludeDisabled bool   `json:"includeDisabled"`
	// Deferred lists deferred tools by name only (tools.deferred).
	Deferred bool `json:"deferred"`
}

// listTools renders every tool host can serve in the asked format with its
// registry state.
func listTools(sess *session.Session, host tools.Host, raw json.RawMessage) (any, error) {
	var p listToolsParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	switch p.Format {
	case "", tools.FormatAnthropic, tools.FormatOpenAI, tools.FormatMCP:
	default:
		return nil, invalidParams("field \"format\" is %q: use anthropic, openai or mcp", p.Format)
	}
	list := []map[string]any{}
	patterns := sess.Settings.Current().Tools.Deferred
	for _, e := range sess.Registry.Entries(p.IncludeDisabled) {
		if tools.Unservable(e.Tool, host) != "" {
			continue // this client cannot serve it (a call says why)
		}
		def, err := tools.ListDefinition(e.Tool, p.Format, p.Deferred, patterns)
		if err != nil {
			return nil, invalidParams("%v", err)
		}
		if def["deferred"] == true {
			def["category"], def["enabled"] = e.Category, e.Enabled
			list = append(list, def)
			continue
		}
		def["category"] = e.Category
		def["sideEffect"] = e.Tool.SideEffect()
		def["risk"] = tools.DefaultRisk(e.Tool.SideEffect())
		def["enabled"] = e.Enabled
		def["autoAllowed"] = sess.AutoAllowed(host, e.Tool)
		def["docs"] = toolDocs(e.Tool)
		list = append(list, def)
	}
	return map[string]any{"tools": list}, nil
}

// servedNames are the names of the enabled tools host can serve, in
// registration order: what toolhost/listTools lists.
func servedNames(sess *session.Session, host tools.Host) []string {
	var names []string
	for _, e := range sess.Registry.Entries(false) {
		if tools.Unservable(e.Tool, host) == "" {
			names = append(names, e.Tool.Name())
		}
	}
	return names
}

// toolDocs is a tool's documentation, or its description's first line.
func toolDocs(t tools.Tool) tools.Docs {
	if d, ok := t.(tools.Documented); ok {
		return d.Docs()
	}
	short, _, _ := strings.Cut(strings.TrimSpace(t.Description()), "\n")
	return tools.Docs{Short: short}
}

// callToolParams are toolhost/callTool's params.
type callToolParams struct {
	Name   *string         `json:"name"`
	Input  json.RawMessage `json:"input"`
	CallID string          `json:"callId"`
	// Approval is the token toolhost/checkPermission returned for
	// exactly this call: the editor showed its prompt and the user agreed.
	Approval string `json:"approval"`
	// TurnID names the agent's turn (one model response) the call belongs
	// to, for the change journal; calls without one are grouped by pauses.
	TurnID string `json:"turnId"`
	// Agent names the agent that makes the call (the editor's chat
	// participant); the client's own name when empty.
	Agent string `json:"agent"`
}

// callTool runs one call through the pipeline.
func (s *server) callTool(ctx context.Context, sess *session.Session, raw json.RawMessage, fl *inflightCall) (any, error) {
	var p callToolParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if p.Name == nil || strings.TrimSpace(*p.Name) == "" {
		return nil, invalidParams("missing required field \"name\" (the tool to call)")
	}
	req := engine.Request{CallID: p.CallID, Name: *p.Name, Input: p.Input}
	// The key re-encodes the input: only a call that presents an approval
	// pays for it (a 5 MB Write would spend a quarter of its time here).
	// A token of another call is used up and the call asks as usual.
	if p.Approval != "" {
		if ap, same := s.approvals.take(p.Approval, approvalKey(*p.Name, p.Input)); same {
			req.Approval = ap
		}
	}
	return sess.Pipeline.Call(s.withOrigin(ctx, p.TurnID, p.Agent), s.callHost(fl.cancel), req)
}

// callToolsParams are toolhost/callTools' params.
type callToolsParams struct {
	Calls *[]callToolParams `json:"calls"`
	// TurnID and Agent apply to every call (callTool's fields).
	TurnID string `json:"turnId"`
	Agent  string `json:"agent"`
}

// callTools runs the tool_use blocks of one model turn and returns their
// results in the order given.
func (s *server) callTools(ctx context.Context, sess *session.Session, raw json.RawMessage, fl *inflightCall) (any, error) {
	var p callToolsParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if p.Calls == nil {
		return nil, invalidParams("missing required field \"calls\" (an array of {callId, name, input})")
	}
	reqs := make([]engine.Request, len(*p.Calls))
	for i, c := range *p.Calls {
		if c.Name == nil || strings.TrimSpace(*c.Name) == "" {
			return nil, invalidParams("missing required field \"calls[%d].name\"", i)
		}
		reqs[i] = engine.Request{CallID: c.CallID, Name: *c.Name, Input: c.Input}
	}
	host := s.callHost(fl.cancel)
	results, err := runBatch(s.withOrigin(ctx, p.TurnID, p.Agent), sess.Pipeline, host, reqs)
	if err != nil {
		return nil, err
	}
	return map[string]any{"results": results}, nil
}

// setToolsEnabledParams are toolhost/setToolsEnabled's params.
type setToolsEnabledParams struct {
	Names   *[]string `json:"names"`
	Enabled *bool     `json:"enabled"`
}

func setToolsEnabled(sess *session.Session, host tools.Host, raw json.RawMessage) (any, error) {
	var p setToolsEnabledParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if p.Names == nil {
		return nil, invalidParams("missing required field \"names\" (an array of tool names)")
	}
	if p.Enabled == nil {
		return nil, invalidParams("missing required field \"enabled\" (true or false)")
	}
	if err := sess.Registry.SetEnabled(*p.Names, *p.Enabled); err != nil {
		return nil, invalidParams("field \"names\": %v", err)
	}
	return map[string]any{"tools": nonNil(servedNames(sess, host))}, nil
}

func setPermissionMode(sess *session.Session, raw json.RawMessage) (any, error) {
	var p struct {
		Mode *string `json:"mode"`
	}
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if p.Mode == nil {
		return nil, invalidParams("missing required field \"mode\" (default, acceptEdits, plan, bypassPermissions or dontAsk)")
	}
	if err := sess.Permissions.SetMode(*p.Mode); err != nil {
		return nil, invalidParams("field \"mode\": %v", err)
	}
	return map[string]any{"mode": sess.Permissions.Mode()}, nil
}

// toolStatus is one tool in toolhost/status.
type toolStatus struct {
	Name     string `json:"name"`
	Category string `json:"category"`
	Enabled  bool   `json:"enabled"`
}

func (s *server) status(ctx context.Context, sess *session.Session, raw json.RawMessage) (any, error) {
	var p struct{}
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	list := []toolStatus{}
	for _, e := range sess.Registry.Entries(true) {
		list = append(list, toolStatus{Name: e.Tool.Name(), Category: e.Category, Enabled: e.Enabled})
	}
	out := map[string]any{
		"tools":            list,
		"permissionMode":   sess.Permissions.Mode(),
		"roots":            nonNil(sess.Workspace.Roots()),
		"positionEncoding": sess.Workspace.PositionEncoding(),
	}
	// The session adds its own state: MCP servers, background tasks, todos,
	// settings problems, where edits are reviewed.
	for k, v := range sess.Status() {
		out[k] = v
	}
	// A client that reviews a turn's changes as one gets every change
	// that needs review in toolhost/reviewChanges, whatever the setting.
	if s.capabilities().Toolhost.ReviewChanges {
		out["editReview"] = "turn"
	}
	// The endpoint starts just after initialize; a status asked at once
	// waits the few milliseconds for it.
	select {
	case <-s.endpointReady:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if e := s.agentEndpoint(); e != nil {
		out["agentEndpoint"] = e.status()
	}
	select {
	case <-s.ideReady:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if ide := s.ideStatus(); ide != nil {
		out["claudeCodeIde"] = ide
	}
	return out, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
