package lspserver

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/discovery"
	"github.com/toolhost/toolhost/mcpserver"
	"github.com/toolhost/toolhost/session"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

// endpoint serves the editor session over MCP (streamable HTTP) on a
// loopback port to other agents: their calls run in this session, with
// the editor's documents, edits, dialogs and progress.
type endpoint struct {
	url, token string
	mcp        *mcpserver.Server
	http       *http.Server
	served     chan struct{}
	// serversURL serves only the tools of toolhost's MCP servers to the
	// editor itself (VS Code's MCP server definition provider), behind
	// editorToken, which only the editor connection learns.
	serversURL, editorToken string
	servers                 *mcpserver.Server

	// mu guards file and info: the discovery file and what it says.
	mu   sync.Mutex
	file string
	info discovery.Info

	agentsMu sync.Mutex
	// agents are the latest clients that connected, for toolhost/status.
	agents []connectedAgent
}

// connectedAgent is a client that connected to the endpoint.
type connectedAgent struct {
	Name string    `json:"name"`
	At   time.Time `json:"at"`
}

// maxAgentsShown bounds the agents toolhost/status lists.
const maxAgentsShown = 10

func (e *endpoint) connected(name string) {
	if name == "" {
		name = "(unnamed)"
	}
	e.agentsMu.Lock()
	defer e.agentsMu.Unlock()
	e.agents = append(e.agents, connectedAgent{Name: name, At: time.Now().UTC()})
	if len(e.agents) > maxAgentsShown {
		e.agents = e.agents[len(e.agents)-maxAgentsShown:]
	}
}

// startEndpoint starts the endpoint of sess; editor names the editor.
func (s *server) startEndpoint(sess *session.Session, editor string) (*endpoint, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening on a loopback port: %w", err)
	}
	base := "http://" + ln.Addr().String()
	e := &endpoint{token: discovery.NewToken(), url: base + "/mcp", served: make(chan struct{}),
		editorToken: discovery.NewToken(), serversURL: base + "/mcp/servers"}
	e.mcp = mcpserver.NewServer(sess.Registry, sess.Pipeline, s.opts.Log, mcpserver.Config{
		Instructions: "toolhost: coding tools (read, search, edit, run) that run inside the user's " + editorName(editor) +
			" session: reads see unsaved changes, edits arrive as reviewable editor edits, and the user approves calls in the editor.",
		OnClient: e.connected,
		Deferred: func() []string { return sess.Settings.Current().Tools.Deferred },
		// The editor's client decides which tools an agent can be served:
		// the language tools only when it answers them.
		Host: func() tools.Host { return s.callHost(func() {}) },
		// Its tools are added when an agent first lists or calls them, not
		// beside the editor's initialize reply (mcpserver.Config.SyncLater).
		SyncLater: true,
		CallHost: func(req *sdk.CallToolRequest, own tools.Host) tools.Host {
			return &endpointHost{editorHost: s.callHost(func() {}), own: own, client: agentName(req)}
		},
	})
	// The editor confirms each MCP tool call in its own UI (VS Code does),
	// so toolhost's prompt for that very call is answered by it; rules
	// that deny still deny, and a hook's question is still asked.
	e.servers = mcpserver.NewServer(sess.Registry, sess.Pipeline, s.opts.Log, mcpserver.Config{
		Instructions: "toolhost: the MCP servers configured in toolhost, running in the user's " + editorName(editor) + " session.",
		Serves:       func(name string) bool { return strings.HasPrefix(name, "mcp__") },
		SyncLater:    true,
		CallHost: func(req *sdk.CallToolRequest, own tools.Host) tools.Host {
			return &editorConfirmedHost{endpointHost{editorHost: s.callHost(func() {}), own: own, client: editorName(editor)}, req.Params.Name}
		},
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", requireToken(e.token, e.mcp.Handler()))
	mux.Handle("/mcp/servers", requireToken(e.editorToken, e.servers.Handler()))
	e.http, ln = guardedServer(ln, mux)
	go func() {
		defer close(e.served)
		if err := e.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.opts.Log.Warn("the agent endpoint stopped", "err", err)
		}
	}()
	e.info = discovery.Info{PID: os.Getpid(), Roots: sess.Workspace.Roots(), URL: e.url, Token: e.token, Client: editor, Version: s.opts.Version, StartedAt: time.Now().UTC()}
	if e.file, err = discovery.Write(e.info); err != nil {
		// The endpoint still serves clients that are given its URL and
		// token (the editor's own, through toolhost/status).
		s.opts.Log.Warn("the agent endpoint runs, but its session file could not be written: toolhost mcp --attach will not find it", "err", err)
	}
	return e, nil
}

// requireToken refuses requests without the bearer token.
func requireToken(token string, next http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="toolhost"`)
			refuse(w, "toolhost: a wrong or missing bearer token. Connect with `toolhost mcp --attach`, or read the token from the session file named in toolhost/status (agentEndpoint.sessionFile).", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// setRoots brings the discovery file up to date with the workspace.
func (e *endpoint) setRoots(roots []string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.info.Roots = roots
	if e.file == "" {
		return nil
	}
	return discovery.Update(e.file, e.info)
}

// status is the endpoint's part of toolhost/status.
func (e *endpoint) status() map[string]any {
	e.agentsMu.Lock()
	agents := append([]connectedAgent{}, e.agents...)
	e.agentsMu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	// The agents' token is not here: status is shown to people (a
	// document, a screen share); agents read it from the private session
	// file. editorToken stays: the editor itself connects with it, and its
	// client keeps it out of what it shows.
	return map[string]any{"url": e.url, "sessionFile": e.file, "pid": e.info.PID,
		"serversUrl": e.serversURL, "editorToken": e.editorToken, "agents": agents}
}

// close removes the discovery file and stops serving.
func (e *endpoint) close() {
	e.mu.Lock()
	if e.file != "" {
		_ = os.Remove(e.file)
		e.file = ""
	}
	e.mu.Unlock()
	// Agents keep an event stream open for as long as they run, so a
	// graceful shutdown would always wait: the connections are cut, which
	// also cancels the calls still running.
	_ = e.http.Close()
	<-e.served
	e.mcp.Close()
	e.servers.Close()
}

// endpointHost is the host of a call through the endpoint: the editor's
// (documents, applyEdit, dialogs, progress, todos), with prompts that name
// the agent that asked, and progress reported to the agent too.
type endpointHost struct {
	*editorHost
	own    tools.Host
	client string
}

func (h *endpointHost) RequestPermission(ctx context.Context, req tools.PermissionRequest) (tools.PermissionResponse, error) {
	req.Title = h.client + " wants to run " + req.ToolName + ": " + req.Title
	return h.editorHost.RequestPermission(ctx, req)
}

// ApplyEdit names the agent in the edit's label: an editor that reviews
// the change shows it, and the user sees whose change it is.
func (h *endpointHost) ApplyEdit(ctx context.Context, params *workspace.ApplyWorkspaceEditParams) (*workspace.ApplyWorkspaceEditResult, error) {
	named := *params
	if named.Label != "" {
		named.Label = h.client + ": " + named.Label
	}
	return h.editorHost.ApplyEdit(ctx, &named)
}

// ReviewChanges names the agent in each change's label, as ApplyEdit
// does; the title names it already (the journal's agent is the client).
func (h *endpointHost) ReviewChanges(ctx context.Context, req tools.ReviewRequest) (*tools.ReviewResponse, error) {
	named := req
	named.Changes = make([]tools.ReviewChange, len(req.Changes))
	for i, c := range req.Changes {
		c.Label = h.client + ": " + c.Label
		named.Changes[i] = c
	}
	return h.editorHost.ReviewChanges(ctx, named)
}

func (h *endpointHost) BeginProgress(ctx context.Context, title string, cancel func()) tools.ProgressEnder {
	return bothProgress{h.editorHost.BeginProgress(ctx, h.client+": "+title, cancel), h.own.BeginProgress(ctx, title, cancel)}
}

// AgentName names the agent in the change journal.
func (h *endpointHost) AgentName() string { return h.client }

// editorConfirmedHost is the host of a call the editor confirmed in its
// own UI before sending it: the permission checker's prompt for the call's
// own tool (the checker's prompts offer rules to allow it; a hook's
// question offers none) is answered yes; any other prompt is shown.
type editorConfirmedHost struct {
	endpointHost
	tool string
}

func (h *editorConfirmedHost) RequestPermission(ctx context.Context, req tools.PermissionRequest) (tools.PermissionResponse, error) {
	if mcpserver.MCPName(req.ToolName) == h.tool && len(req.Suggestions) > 0 {
		return tools.PermissionResponse{Decision: tools.DecisionAllow}, nil
	}
	return h.endpointHost.RequestPermission(ctx, req)
}

// bothProgress reports to the editor and to the agent.
type bothProgress []tools.ProgressEnder

func (b bothProgress) Report(m string) {
	for _, p := range b {
		p.Report(m)
	}
}

func (b bothProgress) End(m string) {
	for _, p := range b {
		p.End(m)
	}
}

// agentName is how a prompt names the agent of a call: the name toolhost
// mcp --attach passed on, else the MCP client's own.
func agentName(req *sdk.CallToolRequest) string {
	if name, ok := req.Params.Meta[mcpserver.ClientMetaKey].(string); ok && strings.TrimSpace(name) != "" {
		return prettyClient(name)
	}
	if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil {
		if p.ClientInfo.Title != "" {
			return p.ClientInfo.Title
		}
		if p.ClientInfo.Name != "" {
			return prettyClient(p.ClientInfo.Name)
		}
	}
	return "An agent"
}

// knownClients are the names some MCP clients give themselves, as users
// know them.
var knownClients = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"claude-code":     "Claude Code",
		"claude-ai":       "Claude",
		"codecompanion":   "CodeCompanion",
		"mcphub":          "mcphub",
		"cline":           "Cline",
		"continue-client": "Continue",
		"opencode":        "opencode",
	}
})

func prettyClient(name string) string {
	if pretty, ok := knownClients()[strings.ToLower(strings.TrimSpace(name))]; ok {
		return pretty
	}
	return strings.TrimSpace(name)
}

func editorName(client string) string {
	if client == "" {
		return "editor"
	}
	return client
}
