// Package session is the composition root of toolhost: it builds, for one
// client session, the workspace, the settings, the tool registry with every
// built-in tool, and the pipeline. The editor server, the MCP server and the
// CLI each create one Session.
package session

import (
	"encoding/json"
	"log/slog"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/builtin"
	"github.com/toolhost/toolhost/workspace"
)

// Options configure a session.
type Options struct {
	// Roots are the workspace folders; the first is the base of relative paths.
	Roots []string
	// InitOptions is the client's initializationOptions (settings shape).
	InitOptions json.RawMessage
	// Mode is the initial permission mode; empty means the settings' default.
	Mode string
	// Log receives the session's logs; nil discards them.
	Log *slog.Logger
}

// Session is everything one client session uses.
type Session struct {
	Workspace *workspace.Workspace
	Registry  *tools.Registry
	Pipeline  *tools.Pipeline
	Log       *slog.Logger
}

// New builds a session.
func New(opts Options) (*Session, error) {
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ws := workspace.New(opts.Roots...)
	reg := tools.NewRegistry()
	builtin.Register(reg, builtin.Deps{Workspace: ws, Log: log, Settings: settings.Defaults})
	return &Session{
		Workspace: ws,
		Registry:  reg,
		Pipeline:  tools.NewPipeline(reg, log),
		Log:       log,
	}, nil
}

// Close ends what the session started (background tasks, MCP servers).
func (s *Session) Close() {}
