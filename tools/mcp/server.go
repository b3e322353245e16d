package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/pathutil"
	"github.com/toolhost/toolhost/tools"
)

// A stdio server is stopped as the MCP spec says: its stdin is closed, after
// terminateGrace it gets SIGTERM, and after stopGrace its whole process group
// is killed. Many Node servers keep timers alive and never exit on EOF, so
// the waits are short: they delay a session's shutdown.
const (
	terminateGrace = 500 * time.Millisecond
	stopGrace      = time.Second
)

// legacyProtocolVersion is the newest MCP version of the initialize
// handshake era.
const legacyProtocolVersion = "2025-11-25"

// server supervises one configured MCP server: it connects, registers the
// tools, watches the connection and restarts after a crash.
type server struct {
	m   *Manager
	cfg ServerConfig
	log *slog.Logger

	// ctx ends the supervisor; done is closed once it returned.
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	// stderr keeps the last lines the server wrote to stderr.
	stderr *stderrLog
	// nextToken numbers progress tokens.
	nextToken atomic.Int64
	// refreshMu serialises tool list refreshes.
	refreshMu sync.Mutex
	// changedMu guards the list_changed refresh that waits its turn:
	// changedQueued says one is started and has not yet begun listing, and
	// changedSession is the session it will list (the latest notified).
	changedMu      sync.Mutex
	changedQueued  bool
	changedSession *sdk.ClientSession
	// asking is set while the user is asked to approve the server; a
	// reload then leaves it alone (saving the approval reloads the settings).
	asking atomic.Bool

	mu        sync.Mutex
	state     State
	session   *sdk.ClientSession
	pid       int
	toolCount int
	lastErr   string
	restarts  int
	// progress routes progress notifications to the calls that asked for them.
	progress map[string]tools.Progress
}

func newServer(parent context.Context, m *Manager, c ServerConfig) *server {
	ctx, cancel := context.WithCancel(parent)
	log := m.log.With("server", c.Name)
	state := StateStarting
	if !m.allowed(c) {
		state = StateNeedsApproval // shown from the start, not only once asked
	}
	return &server{
		m: m, cfg: c, log: log,
		ctx: ctx, cancel: cancel, done: make(chan struct{}),
		stderr:   &stderrLog{log: log},
		state:    state,
		progress: map[string]tools.Progress{},
	}
}

func (s *server) status() ServerStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ServerStatus{
		Name: s.cfg.Name, Source: s.cfg.Source, Transport: s.cfg.transportKind(),
		State: s.state, Tools: s.toolCount, LastError: s.lastErr, Restarts: s.restarts, PID: s.pid,
	}
}

func (s *server) setState(st State, lastErr string) {
	s.mu.Lock()
	if st == s.state && lastErr == "" {
		// Nothing to report (an approved server is already starting when
		// its supervisor's loop says so).
		s.mu.Unlock()
		return
	}
	s.state = st
	if lastErr != "" {
		s.lastErr = lastErr
	}
	s.mu.Unlock()
	s.m.notify(s.status())
}

// current returns the live session, or nil with the status explaining why.
func (s *server) current() (*sdk.ClientSession, ServerStatus) {
	s.mu.Lock()
	cs := s.session
	s.mu.Unlock()
	return cs, s.status()
}

// stop ends the server and waits until its process is gone.
func (s *server) stop() {
	s.cancel()
	<-s.done
}

// run is the supervisor: approval, connect, serve, restart with backoff.
func (s *server) run() {
	defer close(s.done)
	defer func() {
		if s.ctx.Err() != nil {
			s.setState(StateStopped, "")
		}
	}()
	if !s.approved() {
		return
	}
	backoff := s.m.opts.RestartBackoff
	attempts := 0
	everConnected := false
	for {
		s.setState(StateStarting, "")
		conn, err := s.connect()
		if s.ctx.Err() != nil {
			conn.close()
			return
		}
		if err != nil {
			s.setState(StateFailed, err.Error())
			s.log.Warn("MCP server failed to start", "err", err)
			if !everConnected {
				// A server that never started fails the same way again
				// (missing command, wrong URL, no answer): leave it failed
				// until the configuration changes.
				return
			}
		} else {
			everConnected = true
			since := time.Now()
			err := s.serve(conn)
			if s.ctx.Err() != nil {
				return
			}
			s.setState(StateFailed, err.Error())
			s.log.Warn("MCP server went away", "err", err)
			var permanent permanentError
			if errors.As(err, &permanent) {
				return
			}
			if time.Since(since) >= s.m.opts.StableAfter {
				attempts, backoff = 0, s.m.opts.RestartBackoff
			}
		}
		if attempts >= s.m.opts.MaxRestarts {
			s.setState(StateFailed, fmt.Sprintf("%s; gave up after %d restarts", s.status().LastError, attempts))
			return
		}
		attempts++
		s.mu.Lock()
		s.restarts++
		s.mu.Unlock()
		timer := time.NewTimer(backoff)
		select {
		case <-s.ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		}
		backoff = min(2*backoff, s.m.opts.MaxBackoff)
	}
}

// approved asks for a project server's approval when the settings do not
// give it; without one the server waits in needs-approval.
func (s *server) approved() bool {
	if s.m.allowed(s.cfg) {
		return true
	}
	// asking covers the whole exchange, up to the state a reload keeps
	// (starting): saving the approval reloads the servers, maybe only after
	// the answer came back.
	s.asking.Store(true)
	defer s.asking.Store(false)
	s.setState(StateNeedsApproval, "")
	if s.m.opts.Approve == nil || !s.m.opts.Approve(s.ctx, s.cfg.Name) {
		s.setState(StateNeedsApproval, "this server of the project's .mcp.json was not allowed by the user")
		return false
	}
	s.setState(StateStarting, "")
	return true
}

// connection is one connected session and the process behind it.
type connection struct {
	session *sdk.ClientSession
	cmd     *exec.Cmd
}

// close ends the session, then the whole process group and scope: servers
// started through npx or a shell leave children behind otherwise, and a
// daemon the server forked would outlive it.
func (c *connection) close() {
	if c == nil {
		return
	}
	closed := make(chan struct{})
	go func() {
		if c.session != nil {
			_ = c.session.Close()
		}
		close(closed)
	}()
	timer := time.NewTimer(stopGrace)
	select {
	case <-closed:
	case <-timer.C:
	}
	timer.Stop()
	if c.cmd != nil && c.cmd.Process != nil {
		killProcesses(c.cmd)
	}
	<-closed
}

// connect starts the server and completes the MCP handshake within
// InitTimeout.
func (s *server) connect() (*connection, error) {
	ctx, cancel := context.WithTimeout(s.ctx, s.m.opts.InitTimeout)
	defer cancel()
	conn := &connection{}
	var transport sdk.Transport
	switch s.cfg.transportKind() {
	case "stdio":
		cmd, err := s.command()
		if err != nil {
			return nil, err
		}
		conn.cmd = cmd
		transport = &sdk.CommandTransport{Command: cmd, TerminateDuration: terminateGrace}
	case "http", "sse":
		if err := s.cfg.validate(); err != nil {
			return nil, err
		}
		client := &http.Client{Transport: headerTransport{headers: s.cfg.Headers, base: http.DefaultTransport}}
		if s.cfg.transportKind() == "sse" {
			transport = &sdk.SSEClientTransport{Endpoint: s.cfg.URL, HTTPClient: client}
		} else {
			transport = &sdk.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: client, MaxRetries: 1}
		}
		transport = lifetimeTransport{Transport: transport, ctx: s.ctx}
	default:
		return nil, s.cfg.validate()
	}
	var sessionOpts *sdk.ClientSessionOptions
	if s.cfg.transportKind() == "sse" {
		// HTTP+SSE is not a transport of protocol 2026-07-28: start with
		// the handshake it speaks instead of a discovery it refuses.
		sessionOpts = &sdk.ClientSessionOptions{ProtocolVersion: legacyProtocolVersion}
	}
	cs, err := newClient(s).Connect(ctx, transport, sessionOpts)
	if err != nil {
		conn.close()
		switch {
		case s.ctx.Err() != nil:
			return nil, s.ctx.Err()
		case ctx.Err() != nil:
			return nil, fmt.Errorf("the server did not complete the MCP initialize handshake within %s%s", s.m.opts.InitTimeout, s.stderr.hint())
		}
		return nil, fmt.Errorf("connecting: %v%s", err, s.stderr.hint())
	}
	conn.session = cs
	return conn, nil
}

// command builds the stdio server's process in its own process group.
func (s *server) command() (*exec.Cmd, error) {
	if err := s.cfg.validate(); err != nil {
		return nil, err
	}
	// Only absolute PATH entries: a relative one (".", node_modules/.bin)
	// names a folder of the working folder, which may be an untrusted
	// clone shipping a program of the same name.
	path, err := pathutil.LookPathAbs(s.cfg.Command)
	if err != nil {
		return nil, fmt.Errorf("cannot run %q: %v; install it or fix the command of the MCP server %q", s.cfg.Command, errors.Unwrap(err), s.cfg.Name)
	}
	cmd := exec.Command(path, s.cfg.Args...)
	cmd.Dir = s.cfg.Dir
	cmd.Env = os.Environ()
	for k, v := range s.cfg.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stderr = s.stderr
	setProcessGroup(cmd)
	return cmd, nil
}

// serve registers the tools of a fresh connection and waits until it ends;
// it returns why it ended.
func (s *server) serve(conn *connection) error {
	s.mu.Lock()
	s.session = conn.session
	if conn.cmd != nil && conn.cmd.Process != nil {
		s.pid = conn.cmd.Process.Pid
	}
	s.mu.Unlock()
	listErr := s.refreshTools(conn.session)
	if listErr != nil {
		s.log.Warn("listing tools failed", "err", listErr)
	}
	s.setState(StateConnected, "")

	ended := make(chan error, 1)
	go func() { ended <- conn.session.Wait() }()
	var why error
	select {
	case <-s.ctx.Done():
		why = s.ctx.Err()
	case err := <-ended:
		why = s.endCause(conn, err, listErr)
	}
	// Under refreshMu: a list_changed refresh still in flight must not
	// register the tools of this dead connection after they are removed.
	s.refreshMu.Lock()
	s.mu.Lock()
	s.session = nil
	s.pid = 0
	s.toolCount = 0
	s.mu.Unlock()
	s.m.reg.RemovePrefix(ToolPrefix(s.cfg.Name))
	s.refreshMu.Unlock()
	conn.close()
	return why
}

// permanentError is a failure that a restart would repeat: the
// supervisor leaves the server failed.
type permanentError struct{ error }

func (e permanentError) Unwrap() error { return e.error }

// endCause names why a connection ended, from what the session reported
// (waitErr), what failed on it (listErr), and whether the process still
// runs: "the server process exited" only when it did.
func (s *server) endCause(conn *connection, waitErr, listErr error) error {
	for _, err := range []error{waitErr, listErr} {
		if err != nil && strings.Contains(err.Error(), "maximum line length") {
			return permanentError{fmt.Errorf("the server sent a message longer than the MCP client reads in one line (%d MB), so the connection was closed; it was not restarted, since it would fail the same way. Make the server send less (fewer or smaller tools), or ask its authors to", sdk.DefaultMaxLineLength>>20)}
		}
	}
	if conn.cmd != nil && conn.cmd.Process != nil && processGone(conn.cmd.Process.Pid) {
		return fmt.Errorf("the server process exited%s", s.stderr.hint())
	}
	cause := waitErr
	if cause == nil || errors.Is(cause, sdk.ErrConnectionClosed) {
		cause = listErr
	}
	if cause != nil {
		return fmt.Errorf("the connection to the server failed: %v%s", cause, s.stderr.hint())
	}
	return errors.New("the server closed the connection")
}

// refreshTools lists the server's tools and registers them, replacing the
// previous set.
func (s *server) refreshTools(cs *sdk.ClientSession) error {
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	return s.refreshToolsLocked(cs)
}

// toolListChanged answers a server's notifications/tools/list_changed. The
// refresh runs aside (listing from inside a notification handler could wait
// on the very read loop that delivers the answer), and notifications that
// come while one refresh waits its turn are folded into it: a server
// flooding list_changed costs one running and one waiting refresh, not a
// goroutine each (thousands a second, hundreds of megabytes).
func (s *server) toolListChanged(cs *sdk.ClientSession) {
	s.changedMu.Lock()
	s.changedSession = cs
	start := !s.changedQueued
	s.changedQueued = true
	s.changedMu.Unlock()
	if !start {
		return
	}
	s.m.bg.Go("re-listing an MCP server's tools", func(context.Context) {
		s.refreshMu.Lock()
		defer s.refreshMu.Unlock()
		// From here a new notification starts another refresh: this one
		// may list before the server's latest change.
		s.changedMu.Lock()
		cs := s.changedSession
		s.changedQueued, s.changedSession = false, nil
		s.changedMu.Unlock()
		if err := s.refreshToolsLocked(cs); err != nil {
			s.log.Warn("could not list the MCP server's changed tools", "err", err)
		}
	})
}

// refreshToolsLocked is refreshTools with refreshMu held.
func (s *server) refreshToolsLocked(cs *sdk.ClientSession) error {
	ctx, cancel := context.WithTimeout(s.ctx, s.m.opts.InitTimeout)
	defer cancel()
	var list []tools.Tool
	if caps := cs.InitializeResult().Capabilities; caps != nil && caps.Tools != nil {
		for t, err := range cs.Tools(ctx, nil) {
			if err != nil {
				return err
			}
			list = append(list, newProxyTool(s, t))
		}
	}
	s.mu.Lock()
	if s.session != cs {
		s.mu.Unlock()
		return nil // a refresh for a connection that is gone
	}
	s.toolCount = len(list)
	s.mu.Unlock()
	// One step: a call made while the list is refreshed finds the tool.
	s.m.reg.ReplacePrefix(ToolPrefix(s.cfg.Name), tools.CategoryMCP, list...)
	s.log.Info("MCP tools registered", "count", len(list))
	return nil
}

// callTool calls a tool of the server on behalf of a proxy tool.
func (s *server) callTool(ctx context.Context, name string, args map[string]any, progress tools.Progress) (*tools.Result, error) {
	cs, st := s.current()
	if cs == nil {
		return tools.ErrorResult("%s", downMessage(st)), nil
	}
	params := &sdk.CallToolParams{Name: name, Arguments: args}
	if progress != nil {
		token := s.cfg.Name + "-" + strconv.FormatInt(s.nextToken.Add(1), 10)
		s.mu.Lock()
		s.progress[token] = progress
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			delete(s.progress, token)
			s.mu.Unlock()
		}()
		params.SetProgressToken(token)
	}
	res, err := cs.CallTool(ctx, params)
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil && isConnectionClosed(err):
		st := s.status()
		if st.State == StateConnected {
			st.State, st.LastError = StateFailed, err.Error()
		}
		return tools.ErrorResult("%s", downMessage(st)), nil
	case err != nil:
		return tools.ErrorResult("the MCP server %q refused the call of %s: %v. Check the input against the tool's schema.", s.cfg.Name, name, err), nil
	}
	return convertResult(res), nil
}

// reportProgress passes a progress notification to the call it belongs to.
func (s *server) reportProgress(p *sdk.ProgressNotificationParams) {
	if p == nil {
		return
	}
	s.mu.Lock()
	progress := s.progress[fmt.Sprint(p.ProgressToken)]
	s.mu.Unlock()
	if progress == nil {
		return
	}
	msg := p.Message
	if msg == "" {
		if p.Total > 0 {
			msg = fmt.Sprintf("%g/%g", p.Progress, p.Total)
		} else {
			msg = fmt.Sprintf("%g", p.Progress)
		}
	}
	progress.Report(msg)
}

// lifetimeTransport connects with the server's lifetime instead of the
// handshake's deadline: the SSE transport ties its event stream to the
// context it connects with, which would end the session as soon as the
// handshake returned.
type lifetimeTransport struct {
	sdk.Transport
	ctx context.Context
}

func (t lifetimeTransport) Connect(context.Context) (sdk.Connection, error) {
	return t.Transport.Connect(t.ctx)
}

// headerTransport adds the configured headers to every request of an HTTP
// server.
type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range t.headers {
			r.Header.Set(k, v)
		}
	}
	return t.base.RoundTrip(r)
}

// stderrLog logs a server's stderr line by line and keeps the last lines for
// error messages.
type stderrLog struct {
	log *slog.Logger

	mu      sync.Mutex
	partial []byte
	tail    []string
}

const stderrTailLines = 5

func (w *stderrLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			break
		}
		line := strings.TrimRight(string(w.partial[:i]), "\r")
		w.partial = w.partial[i+1:]
		if strings.TrimSpace(line) == "" {
			continue
		}
		w.log.Info("server stderr", "line", line)
		w.tail = append(w.tail, line)
		if len(w.tail) > stderrTailLines {
			w.tail = w.tail[len(w.tail)-stderrTailLines:]
		}
	}
	if len(w.partial) > 4096 { // a line without end: keep memory bounded
		w.partial = w.partial[len(w.partial)-4096:]
	}
	return len(p), nil
}

// hint is the last stderr line as a suffix for an error message.
func (w *stderrLog) hint() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.tail) == 0 {
		return ""
	}
	return " (stderr: " + w.tail[len(w.tail)-1] + ")"
}
