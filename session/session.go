// Package session is the composition root of toolhost: it builds, for one
// client session, the workspace, the settings, the tool registry with every
// built-in tool, and the pipeline. The editor server, the MCP server and the
// CLI each create one Session.
package session

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/builtin"
	toolmcp "github.com/toolhost/toolhost/tools/mcp"
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
	// ApproveMCPServer asks the user whether a server of the project's
	// .mcp.json may start; nil leaves such servers waiting for approval.
	ApproveMCPServer func(ctx context.Context, server string) bool
}

// Session is everything one client session uses.
type Session struct {
	Workspace *workspace.Workspace
	Registry  *tools.Registry
	Pipeline  *tools.Pipeline
	Log       *slog.Logger
	// MCP runs the configured MCP servers; their tools are in Registry.
	MCP *toolmcp.Manager
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
	mcpOpts := toolmcp.Options{Root: ws.Root(), Settings: settings.Defaults, Log: log, Approve: opts.ApproveMCPServer}
	if opts.Mode != "" {
		mcpOpts.Mode = func() string { return opts.Mode }
	}
	mcpServers := toolmcp.New(reg, mcpOpts)
	// Servers start in the background; a bad .mcp.json is logged by Start
	// and skipped, never fatal.
	_ = mcpServers.Start(context.Background())
	return &Session{
		Workspace: ws,
		Registry:  reg,
		Pipeline:  tools.NewPipeline(reg, log),
		Log:       log,
		MCP:       mcpServers,
	}, nil
}

// Close ends what the session started (background tasks, MCP servers).
func (s *Session) Close() {
	if s.MCP != nil {
		s.MCP.Close()
	}
}
