package session

import (
	"log/slog"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/agent"
	"github.com/toolhost/toolhost/tools/builtin"
	"github.com/toolhost/toolhost/tools/engine"
	"github.com/toolhost/toolhost/tools/intel"
	"github.com/toolhost/toolhost/tools/permission"
	"github.com/toolhost/toolhost/tools/tasks"
	"github.com/toolhost/toolhost/workspace"
)

// isolatedPipeline is agent.IsolatedPipeline for a session: the built-in
// tools over a workspace rooted in root (a sub-agent's worktree), with the
// session's settings, its permission mode at the start and the session's
// additional directories, but without MCP servers, Config or the plan-mode
// tools. done ends the background tasks the sub-agent left.
func isolatedPipeline(store *settings.Store, mode func() string, trusted func() bool, log *slog.Logger) agent.IsolatedPipeline {
	return func(root string) (*engine.Pipeline, func(), error) {
		ws := workspace.New(root)
		ws.SetAdditionalDirectories(store.Current().Permissions.AdditionalDirectories)
		checker := permission.New(permission.Options{Workspace: ws, Settings: store.Current, Saver: store, Mode: mode(), Log: log})
		reg := tools.NewRegistry()
		tm := tasks.NewManager(tasks.Options{Log: log})
		var p *engine.Pipeline
		builtin.Register(reg, builtin.Deps{
			Workspace: ws, Log: log, Settings: store.Current, Tasks: tm,
			Pipeline: func() *engine.Pipeline { return p },
		})
		p = newPipeline(reg, ws, checker, store, trusted, log)
		return p, func() { _ = tm.Close() }, nil
	}
}

// newPipeline is the pipeline over reg of a session's workspace, permission
// checker and settings; trusted says whether the session's folder is.
func newPipeline(reg *tools.Registry, ws *workspace.Workspace, checker *permission.Checker, store *settings.Store, trusted func() bool, log *slog.Logger) *engine.Pipeline {
	return engine.NewPipeline(reg, log,
		engine.WithPermissions(checker),
		engine.WithModes(checker),
		engine.WithSettings(store.Current),
		engine.WithWorkDir(ws.Root),
		engine.WithTrust(trusted),
		engine.WithPathResolver(ws.Resolve),
		engine.WithRootCheck(ws.CheckRoots),
		engine.WithSessionID(newSessionID()),
		engine.WithEditFeedback(intel.NewFeedback(ws, store.Current, log).Wrap),
	)
}
