// Package mcp is toolhost's MCP client side: it starts and supervises the
// MCP servers configured in the settings and in the project's .mcp.json,
// registers each server's tools as mcp__{server}__{tool} proxies, and offers
// ListMcpResources and ReadMcpResource over their resources.
//
// Servers start in the background so that a slow one never delays a
// session; a server that crashes is restarted with backoff; a project
// server starts only once the user allowed it.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/background"
	"github.com/toolhost/toolhost/internal/pathutil"
	"github.com/toolhost/toolhost/internal/version"
	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
)

// State is a server's lifecycle state as toolhost/status shows it.
type State string

const (
	StateStarting      State = "starting"
	StateConnected     State = "connected"
	StateFailed        State = "failed"
	StateNeedsApproval State = "needs-approval"
	StateStopped       State = "stopped"
)

// ServerStatus is one server's entry in toolhost/status.
type ServerStatus struct {
	Name      string `json:"name"`
	Source    Source `json:"source"`
	Transport string `json:"transport"`
	State     State  `json:"state"`
	// Tools is the number of tools the server has registered.
	Tools     int    `json:"tools"`
	LastError string `json:"lastError,omitempty"`
	// Restarts counts restarts after crashes since the server started.
	Restarts int `json:"restarts"`
	// PID is the process of a stdio server while it runs.
	PID int `json:"pid,omitempty"`
}

// Options configure a Manager. Zero durations and counts take the defaults
// given on each field.
type Options struct {
	// Root is the workspace root: where .mcp.json is read and where stdio
	// servers run.
	Root string
	// Settings returns the current settings (mcpServers and the project
	// server approvals). Nil means the defaults.
	Settings func() *settings.Settings
	// Mode returns the current permission mode; in bypassPermissions project
	// servers start without asking. Nil means the settings' default mode.
	Mode func() string
	// Approve asks the user whether a server of the project's .mcp.json may
	// start. Nil denies: such servers wait in state needs-approval. The
	// implementation remembers an approval where it sees fit (the session
	// writes it to .toolhost/settings.local.json).
	Approve func(ctx context.Context, server string) bool
	// ProjectTrusted reports whether the user trusts the workspace folder.
	// While it returns false the project's .mcp.json is not read at all: its
	// servers neither start nor ask (the trust question lists them). Nil
	// means trusted.
	ProjectTrusted func() bool
	// Log receives the manager's logs and the servers' stderr lines.
	Log *slog.Logger
	// InitTimeout bounds the start of a server up to a completed MCP
	// initialize (default 30 s).
	InitTimeout time.Duration
	// RestartBackoff is the first wait before restarting a crashed server
	// (default 1 s); it doubles up to MaxBackoff (default 30 s).
	RestartBackoff time.Duration
	MaxBackoff     time.Duration
	// MaxRestarts is how many restarts in a row are tried before the server
	// is left failed (default 5). The count resets once a server stayed up
	// for StableAfter (default 60 s).
	MaxRestarts int
	StableAfter time.Duration
	// OnStateChange, when set, is called after each state change of a
	// server with its new status (after its tools were registered or
	// removed). It must not block.
	OnStateChange func(ServerStatus)
	// Getenv resolves ${VAR} in configurations; nil is os.LookupEnv.
	Getenv func(string) (string, bool)
}

func (o *Options) setDefaults() {
	if o.Settings == nil {
		o.Settings = settings.Defaults
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.InitTimeout <= 0 {
		o.InitTimeout = 30 * time.Second
	}
	if o.RestartBackoff <= 0 {
		o.RestartBackoff = time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 30 * time.Second
	}
	if o.MaxRestarts <= 0 {
		o.MaxRestarts = 5
	}
	if o.StableAfter <= 0 {
		o.StableAfter = time.Minute
	}
	if o.Getenv == nil {
		o.Getenv = os.LookupEnv
	}
}

// Manager runs the MCP servers of one session.
type Manager struct {
	opts Options
	reg  *tools.Registry
	log  *slog.Logger

	// wg counts the servers' supervisors.
	wg sync.WaitGroup
	// bg owns the other work started for the servers (re-listing a
	// server's tools when it says they changed); Close waits for it.
	bg *background.Group

	mu sync.Mutex
	// ctx is the lifetime of every server; cancel ends them all.
	ctx    context.Context
	cancel context.CancelFunc
	// servers are the running supervisors by name; order is their names sorted.
	servers map[string]*server
	order   []string
	closed  bool
	// projectErr is why the last Reload could not read .mcp.json (nil:
	// read, absent or untrusted), shown with the settings problems.
	projectErr error
	// projectProblems are what the last Reload found wrong in a .mcp.json
	// it could read (keys written twice, bytes not UTF-8).
	projectProblems []settings.Problem
	// changed is closed and replaced at each state change, waking WaitSettled.
	changed chan struct{}
}

// New returns a manager that registers server tools in reg, and registers
// ListMcpResources and ReadMcpResource there. No server starts before Start.
func New(reg *tools.Registry, opts Options) *Manager {
	opts.setDefaults()
	m := &Manager{opts: opts, reg: reg, log: opts.Log.With("component", "mcp"), servers: map[string]*server{}, changed: make(chan struct{})}
	m.bg = background.New(m.log)
	reg.Register(tools.CategoryMCP, NewListMcpResources(m), NewReadMcpResource(m), NewReadMcpResourceDir(m), NewRefreshMcpTools(m))
	return m
}

// Start launches every configured server in the background and returns at
// once. The servers live until Close or until ctx ends. The error reports a
// malformed .mcp.json (its servers are skipped; the others start).
func (m *Manager) Start(ctx context.Context) error {
	m.mu.Lock()
	if m.closed || m.ctx != nil {
		m.mu.Unlock()
		return errors.New("the MCP manager was already started")
	}
	m.ctx, m.cancel = context.WithCancel(ctx)
	m.mu.Unlock()
	return m.Reload()
}

// Reload brings the running servers in line with the configuration: servers
// no longer configured stop, changed ones restart, new ones start, and
// servers that failed or wait for approval are tried again (the command
// may have been installed, an approval added to the settings). Call it
// when the settings change.
func (m *Manager) Reload() error {
	var project map[string]settings.MCPServer
	var perr error
	var problems []settings.Problem
	trusted := m.opts.ProjectTrusted == nil || m.opts.ProjectTrusted()
	if trusted {
		project, problems, perr = ReadProjectConfig(m.opts.Root)
		if perr != nil {
			m.log.Warn("ignoring the project's MCP servers", "err", perr)
		}
	}
	configs := collectConfigs(m.opts.Settings(), project, m.opts.Getenv)
	// The user's own servers run before the folder is trusted, but not in
	// it: `npx -y pkg` or `python3 -m pkg` started there would run the
	// folder's node_modules/pkg or pkg/ instead of the user's.
	dir := m.opts.Root
	if !trusted {
		dir = pathutil.NeutralDir()
	}
	for i := range configs {
		configs[i].Dir = dir
	}

	m.mu.Lock()
	m.projectErr, m.projectProblems = perr, problems
	if m.closed || m.ctx == nil {
		m.mu.Unlock()
		return perr
	}
	want := map[string]ServerConfig{}
	for _, c := range configs {
		want[c.Name] = c
	}
	var stopping []*server
	for name, s := range m.servers {
		c, ok := want[name]
		if st := s.status().State; ok && c.equal(s.cfg) && (st == StateConnected || st == StateStarting || s.asking.Load()) {
			// Unchanged and up, or waiting for the user's answer: keep it.
			delete(want, name)
			continue
		}
		stopping = append(stopping, s)
		delete(m.servers, name)
	}
	for _, c := range want {
		m.servers[c.Name] = newServer(m.ctx, m, c)
	}
	m.order = m.order[:0]
	for name := range m.servers {
		m.order = append(m.order, name)
	}
	slices.Sort(m.order)
	var starting []*server
	for _, c := range want {
		starting = append(starting, m.servers[c.Name])
	}
	// Counted under the lock: Close, which sets closed under it, then waits
	// for every supervisor counted before.
	m.wg.Add(len(starting))
	m.mu.Unlock()

	for _, s := range stopping {
		s.stop()
	}
	for _, s := range starting {
		go func() {
			defer m.wg.Done()
			s.run()
		}()
	}
	return perr
}

// Close stops every server and waits until their processes ended.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	cancel := m.cancel
	m.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	m.wg.Wait()
	m.bg.Close()
}

// ProjectConfigProblems are what the last reload found wrong in the
// project's .mcp.json though it could read it (a server name written twice:
// only the last one starts), in the settings' words.
func (m *Manager) ProjectConfigProblems() []settings.Problem {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]settings.Problem(nil), m.projectProblems...)
}

// ProjectConfigError is why the project's .mcp.json could not be read at
// the last reload, nil when it was read (or is absent, or not trusted): its
// servers are not started, and the user should learn why.
func (m *Manager) ProjectConfigError() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.projectErr
}

// Status returns every server's status, sorted by name.
func (m *Manager) Status() []ServerStatus {
	m.mu.Lock()
	servers := make([]*server, 0, len(m.order))
	for _, name := range m.order {
		servers = append(servers, m.servers[name])
	}
	m.mu.Unlock()
	out := make([]ServerStatus, 0, len(servers))
	for _, s := range servers {
		out = append(out, s.status())
	}
	return out
}

// WaitSettled waits until no server is starting (each is connected, failed,
// waiting for approval or stopped), or until ctx ends. The CLI uses it before
// a call of an MCP tool, which exists only once its server is connected.
func (m *Manager) WaitSettled(ctx context.Context) error {
	for {
		m.mu.Lock()
		changed := m.changed
		m.mu.Unlock()
		starting := slices.ContainsFunc(m.Status(), func(st ServerStatus) bool { return st.State == StateStarting })
		if !starting {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// server returns the server of that name, or nil.
func (m *Manager) server(name string) *server {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.servers[name]
}

// serverNames returns the configured servers' names, sorted.
func (m *Manager) serverNames() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.order)
}

// allowed reports whether a server may start without asking.
func (m *Manager) allowed(c ServerConfig) bool {
	if c.Source != SourceProject {
		return true
	}
	s := m.opts.Settings()
	if s == nil {
		s = settings.Defaults()
	}
	mode := s.Permissions.DefaultMode
	if m.opts.Mode != nil {
		mode = m.opts.Mode()
	}
	return s.EnableAllProjectMCPServers || slices.Contains(s.EnabledMCPJSONServers, c.Name) || mode == tools.ModeBypassPermissions
}

// notify reports a state change.
func (m *Manager) notify(st ServerStatus) {
	m.mu.Lock()
	close(m.changed)
	m.changed = make(chan struct{})
	m.mu.Unlock()
	if m.opts.OnStateChange != nil {
		m.opts.OnStateChange(st)
	}
}

// rootURI is the workspace root as a file URI for MCP roots.
func rootURI(root string) string {
	abs, err := filepath.Abs(root)
	if err != nil {
		return ""
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

// downMessage is the error a call to a server that is not connected gets.
func downMessage(st ServerStatus) string {
	msg := fmt.Sprintf("the MCP server %q is not connected (state: %s", st.Name, st.State)
	if st.LastError != "" {
		msg += "; last error: " + st.LastError
	}
	msg += ")."
	switch st.State {
	case StateNeedsApproval:
		msg += " It comes from the project's .mcp.json and the user has not allowed it: ask the user to allow it (enabledMcpjsonServers in the settings)."
	case StateStarting:
		msg += " It is starting; try again shortly."
	default:
		msg += " Check toolhost/status and the server's configuration; it is restarted automatically after a crash, so a later call may succeed."
	}
	return msg
}

// newClient builds an SDK client whose handlers route to s.
func newClient(s *server) *sdk.Client {
	c := sdk.NewClient(&sdk.Implementation{Name: "toolhost", Version: version.String()}, &sdk.ClientOptions{
		Logger: s.log,
		ToolListChangedHandler: func(_ context.Context, req *sdk.ToolListChangedRequest) {
			s.toolListChanged(req.Session)
		},
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			s.reportProgress(req.Params)
		},
	})
	// Roots are deprecated from protocol 2026-07-28 on, but the servers
	// people run today (server-filesystem among them) scope themselves to
	// the client's roots: offer the workspace.
	if uri := rootURI(s.m.opts.Root); uri != "" && s.m.opts.Root != "" {
		//lint:ignore SA1019 see above
		c.AddRoots(&sdk.Root{URI: uri, Name: filepath.Base(s.m.opts.Root)})
	}
	return c
}

// namesFor is the servers a call about server reaches: that one when it is
// given, else every configured server; an unknown name is the call's error.
func (m *Manager) namesFor(server string) ([]string, *tools.Result) {
	names := m.serverNames()
	if server == "" {
		return names, nil
	}
	if m.server(server) == nil {
		return nil, tools.ErrorResult("%s", unknownServer(server, names))
	}
	return []string{server}, nil
}

// connected is the session of the named server when it is connected; else
// the call's error (an unknown name, or the server's state).
func (m *Manager) connected(server string) (*sdk.ClientSession, *tools.Result) {
	srv := m.server(server)
	if srv == nil {
		return nil, tools.ErrorResult("%s", unknownServer(server, m.serverNames()))
	}
	cs, st := srv.current()
	if cs == nil {
		return nil, tools.ErrorResult("%s", downMessage(st))
	}
	return cs, nil
}
