// Package ideserver serves Claude Code's IDE protocol for an editor session:
// a loopback WebSocket carrying MCP, announced by a lock file in Claude
// Code's configuration folder, through which the Claude Code CLI running in
// the editor's terminal shows its edits as reviews in the editor and reads
// the editor's diagnostics, open documents and selection.
//
// The protocol's tools are not toolhost's tools (they act on the editor,
// not the workspace), so they live here, beside the registry: what the
// server knows (workspace folders, the overlay's documents, the latest
// selection) is answered here, the rest goes to the editor through Editor.
package ideserver

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/discovery"
)

// TokenHeader carries the lock file's authToken on the CLI's WebSocket
// handshake.
const TokenHeader = "x-claude-code-ide-authorization"

// Subprotocol is the WebSocket subprotocol the CLI asks for.
const Subprotocol = "mcp"

// DefaultMaxMessageBytes bounds one WebSocket message: openDiff carries a
// whole file, so the bound is the editor connection's default.
const DefaultMaxMessageBytes = 64 << 20

// notifyTimeout bounds the write of one notification to one CLI, so a CLI
// that stopped reading does not hold up the editor's others.
const notifyTimeout = 5 * time.Second

// Editor answers the tools only the editor can: openDiff, close_tab,
// closeAllDiffTabs, getDiagnostics, getOpenEditors, getCurrentSelection,
// saveDocument, openFile. The result is the tool's own JSON object
// (docs/protocol.md, toolhost/ideTool); Serve turns it into the protocol's
// text.
type Editor interface {
	IDETool(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error)
}

// Config configures Start.
type Config struct {
	// Editor answers the editor's tools; nil answers them with an error
	// saying the editor cannot.
	Editor Editor
	// Folders returns the workspace folders (getWorkspaceFolders, the
	// lock file).
	Folders func() []string
	// Document returns the editor's text of an open document (the
	// overlay), for checkDocumentDirty.
	Document func(path string) (text string, open bool)
	// IDEName is the lock file's ideName (the editor's name).
	IDEName string
	// PID is the editor's process id (initialize.processId); 0 means the
	// server's parent, which started it.
	PID int
	// LockDir is the lock file's folder; "" means LockDir().
	LockDir string
	// MaxMessageBytes bounds one message; 0 means DefaultMaxMessageBytes.
	MaxMessageBytes int64
	Version         string
	Log             *slog.Logger
}

// Server is a running IDE listener.
type Server struct {
	cfg    Config
	token  string
	port   int
	http   *http.Server
	mcp    *sdk.Server
	served chan struct{}
	// handlers counts the connections being served: http.Server does not
	// wait for hijacked (WebSocket) connections, Close does.
	handlers sync.WaitGroup

	// mu guards the fields below it.
	mu       sync.Mutex
	closed   bool
	lockPath string
	lock     Lock
	conns    map[*wsConn]struct{}
	// selection is the latest selection_changed params, for
	// getLatestSelection.
	selection json.RawMessage
}

// Start listens on a loopback port, writes the lock file and serves until
// Close. Lock files of editors that no longer run are removed first.
func Start(cfg Config) (*Server, error) {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxMessageBytes <= 0 {
		cfg.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if cfg.PID <= 0 {
		cfg.PID = os.Getppid()
	}
	if cfg.Folders == nil {
		cfg.Folders = func() []string { return nil }
	}
	if cfg.LockDir == "" {
		dir, err := LockDir()
		if err != nil {
			return nil, err
		}
		cfg.LockDir = dir
	}
	for _, p := range CleanStale(cfg.LockDir) {
		cfg.Log.Debug("removed the lock file of an editor that no longer runs", "file", p)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening on a loopback port: %w", err)
	}
	s := &Server{cfg: cfg, token: discovery.NewToken(), port: ln.Addr().(*net.TCPAddr).Port,
		served: make(chan struct{}), conns: map[*wsConn]struct{}{}}
	s.mcp = sdk.NewServer(&sdk.Implementation{Name: "toolhost-ide", Version: cfg.Version}, &sdk.ServerOptions{
		Instructions: "toolhost: the user's editor. Edits are reviewed in the editor; diagnostics come from its language servers.",
	})
	s.addTools()
	s.lock = Lock{PID: cfg.PID, WorkspaceFolders: lockFolders(cfg.Folders()), IDEName: cfg.IDEName, Transport: "ws", AuthToken: s.token}
	if s.lockPath, err = writeLock(cfg.LockDir, s.port, s.lock); err != nil {
		ln.Close()
		return nil, fmt.Errorf("writing Claude Code's IDE lock file: %w", err)
	}
	s.http = &http.Server{Handler: http.HandlerFunc(s.serveHTTP), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		defer close(s.served)
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			cfg.Log.Warn("Claude Code's IDE listener stopped", "err", err)
		}
	}()
	return s, nil
}

// Port is the listener's port (CLAUDE_CODE_SSE_PORT for the editor's
// terminals).
func (s *Server) Port() int { return s.port }

// LockPath is the lock file's path.
func (s *Server) LockPath() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lockPath
}

// SetFolders rewrites the lock file with the workspace folders, so that
// `claude --ide` started elsewhere finds the session by its folder.
func (s *Server) SetFolders(folders []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.lock.WorkspaceFolders = lockFolders(folders)
	_, err := writeLock(s.cfg.LockDir, s.port, s.lock)
	return err
}

// Connections is the number of CLIs connected.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// Notify sends a notification (selection_changed, at_mentioned) to every
// connected CLI. A selection is also kept for getLatestSelection.
func (s *Server) Notify(ctx context.Context, method string, params json.RawMessage) error {
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Request{Method: method, Params: params})
	if err != nil {
		return err
	}
	s.mu.Lock()
	if method == "selection_changed" {
		s.selection = params
	}
	conns := make([]*wsConn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	var errs []error
	for _, c := range conns {
		wctx, cancel := context.WithTimeout(ctx, notifyTimeout)
		errs = append(errs, c.writeRaw(wctx, data))
		cancel()
	}
	return errors.Join(errs...)
}

// Close stops listening, ends the CLIs' connections, waits for them and
// removes the lock file.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	for c := range s.conns {
		_ = c.Close()
	}
	path := s.lockPath
	s.mu.Unlock()
	_ = s.http.Close()
	<-s.served
	s.handlers.Wait()
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		s.cfg.Log.Warn("Claude Code's IDE lock file could not be removed", "file", path, "err", err)
	}
}

// serveHTTP checks the token and serves one CLI's WebSocket until it
// closes. The token is compared in constant time and never logged.
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	got := r.Header.Get(TokenHeader)
	if subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) != 1 {
		s.cfg.Log.Debug("refused a connection to Claude Code's IDE listener: missing or wrong token", "remote", r.RemoteAddr, "tokenSent", got != "")
		w.Header().Set("Connection", "close")
		http.Error(w, "toolhost: a missing or wrong "+TokenHeader+" header; Claude Code reads the token from the lock file in ~/.claude/ide.", http.StatusUnauthorized)
		return
	}
	// Accept refuses a browser's cross-origin request (Origin not this
	// host): a web page must not reach the editor through the user's
	// browser.
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{Subprotocol}})
	if err != nil {
		s.cfg.Log.Debug("refused a connection to Claude Code's IDE listener", "err", err)
		return
	}
	ws.SetReadLimit(s.cfg.MaxMessageBytes)
	c := &wsConn{ws: ws, notified: s.notified}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = c.Close()
		return
	}
	s.conns[c] = struct{}{}
	s.handlers.Add(1)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		s.handlers.Done()
	}()
	ss, err := s.mcp.Connect(r.Context(), wsTransport{c}, nil)
	if err != nil {
		s.cfg.Log.Debug("a Claude Code connection failed", "err", err)
		_ = c.Close()
		return
	}
	_ = ss.Wait()
}

// notified logs the CLI's own notifications: ide_connected says which
// CLI process connected.
func (s *Server) notified(method string, params json.RawMessage) {
	s.cfg.Log.Debug("Claude Code notification", "method", method, "params", string(params))
}
