// Package session is the composition root of toolhost: it builds, for one
// client session, the workspace, the live settings, the permission checker,
// the tool registry with every built-in tool, the background tasks, the MCP
// servers and the pipeline. The editor server, the MCP server and the CLI
// each create one Session.
package session

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/internal/background"
	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/builtin"
	"github.com/toolhost/toolhost/tools/engine"
	toolmcp "github.com/toolhost/toolhost/tools/mcp"
	"github.com/toolhost/toolhost/tools/permission"
	"github.com/toolhost/toolhost/tools/state"
	"github.com/toolhost/toolhost/tools/tasks"
	"github.com/toolhost/toolhost/tools/team"
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
	// ModeChosenByUser says Mode is the user's own choice (a flag they
	// typed), not a default: bypassPermissions then trusts the folder.
	ModeChosenByUser bool
	// Log receives the session's logs; nil discards them.
	Log *slog.Logger
	// ApproveMCPServer asks the user whether a server of the project's
	// .mcp.json may start; nil leaves such servers waiting for approval. An
	// approval is saved to enabledMcpjsonServers in the first root's
	// .toolhost/settings.local.json, so the user is asked once.
	// command is what the server runs or connects to, in words, for the
	// prompt.
	ApproveMCPServer func(ctx context.Context, server, command string) bool
	// UserConfigPath is the user settings file; empty means the default
	// (~/.config/toolhost/settings.json). Tests point it elsewhere.
	UserConfigPath string
	// NoMCP leaves the configured MCP servers stopped (the CLI starts them
	// only for a call of an MCP tool; the tool reference describes the
	// built-in tools only).
	NoMCP bool
}

// Session is everything one client session uses.
type Session struct {
	Workspace *workspace.Workspace
	Registry  *tools.Registry
	Pipeline  *engine.Pipeline
	Log       *slog.Logger
	// Settings holds the merged settings of every layer. It reloads when
	// the client sends settings (workspace/didChangeConfiguration, which
	// also re-reads the files), when the workspace folders change, when
	// toolhost writes a local settings file itself, and when a settings
	// file or the trust file changes on disk (watchSettingsFiles polls
	// them).
	Settings *settings.Store
	// Permissions decides each call and holds the permission mode.
	Permissions *permission.Checker
	// Tasks runs background commands and agents (Bash and Agent
	// run_in_background).
	Tasks *tasks.Manager
	// Todos is the todo list TodoWrite keeps.
	Todos *state.TodoStore
	// MCP runs the configured MCP servers; their tools are in Registry.
	MCP *toolmcp.Manager
	// mcpRoot is the folder whose .mcp.json the project's MCP servers come
	// from: the first root as pinned when the session started.
	mcpRoot string
	// Teams keeps named background agents' mailboxes and the teams.
	Teams *team.Hub

	// bg owns the goroutines the session starts (reloading the MCP
	// servers); Close waits for them.
	bg *background.Group

	// closeOnce makes Close idempotent (the server and a deferred call may
	// both close).
	closeOnce sync.Once

	// mcpSettingsMu guards mcpSettings, what the MCP servers were last
	// reloaded for (see mcpSettingsOf).
	mcpSettingsMu sync.Mutex
	mcpSettings   string

	// trustMu guards the session's dealings with the user about trust:
	// whether they were asked, whether they declined, and which ignored
	// items were logged already.
	trustMu sync.Mutex
	// trustAsked holds the roots already asked about (or offered to be).
	trustAsked    map[string]bool
	trustDeclined bool
	trustLogged   map[string]bool
}

// New builds a session. It never fails on bad settings: their problems are
// in Settings.Problems and in Status.
func New(opts Options) (*Session, error) {
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// Temporary files of writes a killed toolhost could not finish; before
	// this process writes any (not as it starts: the initialize reply of
	// toolhost mcp does not wait for it).
	workspace.CleanStaleTempsOnce()
	ws := workspace.New(opts.Roots...)
	if dir := changesDir(ws.Root()); dir != "" {
		ws.SetJournal(workspace.OpenJournal(dir, workspace.JournalOptions{Log: log}))
	}
	store := settings.NewStore(settings.LoadOptions{Roots: ws.Roots(), UserConfigPath: opts.UserConfigPath, InitOptions: opts.InitOptions})
	for _, p := range store.Problems() {
		log.Warn("a setting was ignored", "file", p.File, "key", p.Key, "why", p.Message)
	}
	// A user who starts the session in bypassPermissions (a flag) opted out
	// of every prompt, which trusts the folder.
	store.SetSessionBypass(opts.ModeChosenByUser && opts.Mode == tools.ModeBypassPermissions)
	checker := permission.New(permission.Options{Workspace: ws, Settings: store.Current, Saver: store, Mode: opts.Mode, Log: log,
		OnModeChange: func(mode string) { store.SetSessionBypass(mode == tools.ModeBypassPermissions) }})
	s := &Session{
		Workspace:   ws,
		Registry:    tools.NewRegistry(),
		Log:         log,
		Settings:    store,
		Permissions: checker,
		Tasks:       tasks.NewManager(tasks.Options{Log: log, SpillDir: taskSpillDir(ws.Root())}),
		Todos:       state.NewTodoStore(),
		Teams:       team.NewHub(),
		bg:          background.New(log),
	}
	s.applySettings(store.Current())
	store.OnChange(s.applySettings)

	// The project's MCP servers belong to the folder that was opened
	// (workspace/pin.go): its .mcp.json, its trust, its approvals and its
	// folder as their working folder, even after a root link is re-pointed
	// and the settings reload.
	mcpRoot := ws.Root()
	if real := ws.RealRoots(); len(real) > 0 {
		mcpRoot = real[0]
	}
	s.mcpRoot = mcpRoot
	// Until that folder is trusted, what runs on the user's behalf (the
	// user's hooks and MCP servers) starts outside it.
	trusted := func() bool { return store.Current().Trust.Trusted(mcpRoot) }

	builtin.Register(s.Registry, builtin.Deps{
		Workspace:     ws,
		Log:           log,
		Settings:      store.Current,
		SettingsStore: store,
		Modes:         checker,
		Todos:         s.Todos,
		Tasks:         s.Tasks,
		Teams:         s.Teams,
		// The pipeline is built below, before any call can run.
		Pipeline: func() *engine.Pipeline { return s.Pipeline },
		Isolated: isolatedPipeline(store, checker.Mode, trusted, log),
	})
	s.Pipeline = newPipeline(s.Registry, ws, checker, store, trusted, log)

	var approve func(context.Context, string) bool
	if opts.ApproveMCPServer != nil {
		approve = func(ctx context.Context, name string) bool {
			if !opts.ApproveMCPServer(ctx, name, s.projectMCPServerCommand(name)) {
				return false
			}
			if err := store.UpdateLocalList(mcpRoot, "enabledMcpjsonServers", []string{name}, nil); err != nil {
				log.Warn("the MCP server was allowed for this session, but the approval could not be saved", "server", name, "err", err)
			}
			return true
		}
	}
	// The manager registers ListMcpResources and ReadMcpResource even when
	// no server starts, so every session lists the same built-in tools.
	s.MCP = toolmcp.New(s.Registry, toolmcp.Options{Root: mcpRoot, Settings: store.Current, Mode: checker.Mode, Log: log, Approve: approve,
		ProjectTrusted: trusted})
	if !opts.NoMCP {
		// Servers start in the background; a bad .mcp.json is logged by
		// Start and skipped, never fatal.
		_ = s.MCP.Start(context.Background())
	}
	// The files as they are now are the ones the settings were loaded
	// with; a change from here on, even before the watcher runs, is seen.
	stamps := stampsOf(s.Settings.Files())
	s.bg.Go("watching the settings files", func(ctx context.Context) { s.watchSettingsFiles(ctx, stamps, settingsPollInterval) })
	return s, nil
}

// applySettings brings what depends on the settings up to date: the
// additional directories that count as inside the workspace, the tools
// enabled, and the MCP servers.
func (s *Session) applySettings(st *settings.Settings) {
	s.logIgnored(st)
	s.Workspace.SetAdditionalDirectories(st.Permissions.AdditionalDirectories)
	s.Workspace.SetWritesOutsideAllowed(st.Permissions.AllowWritesOutsideWorkspace)
	s.Workspace.SetPathOptions(st.Paths.AtRoot, st.Paths.Fuzzy)
	s.Registry.SetPolicy(toolPolicy(st.Tools))
	s.Registry.SetOptInPolicy(optInPolicy(st.Tools))
	key := mcpSettingsOf(st)
	s.mcpSettingsMu.Lock()
	changed := key != s.mcpSettings
	s.mcpSettings = key
	s.mcpSettingsMu.Unlock()
	if s.MCP != nil && changed {
		// Reload takes the MCP manager's own lock, never the store's, so it
		// is safe from a store listener.
		s.bg.Go("reloading the MCP servers", func(context.Context) {
			if err := s.MCP.Reload(); err != nil {
				s.Log.Warn("the MCP servers could not be reloaded", "err", err)
			}
		})
	}
}

// mcpSettingsOf is what of the settings the MCP servers depend on: an
// unrelated change (an "Always allow" rule saved) does not reload them.
func mcpSettingsOf(st *settings.Settings) string {
	b, _ := json.Marshal([]any{st.MCPServers, st.EnabledMCPJSONServers, st.EnableAllProjectMCPServers, st.Permissions.DefaultMode, st.Trust.Roots})
	return string(b)
}

// toolPolicy turns tools.enabled and tools.disabled into the registry's
// policy: with a non-empty tools.enabled only the tools it names are enabled;
// tools.disabled then turns tools off. Names are matched case-insensitively;
// an entry ending in "*" matches a prefix (e.g. "mcp__github__*").
func toolPolicy(t settings.ToolsSettings) func(string) bool {
	if len(t.Enabled) == 0 && len(t.Disabled) == 0 {
		return nil
	}
	return func(name string) bool {
		if len(t.Enabled) > 0 && !namesMatch(t.Enabled, name) {
			return false
		}
		return !namesMatch(t.Disabled, name)
	}
}

// namesMatch reports whether a list of tool names names name,
// case-insensitively; an entry ending in "*" matches a prefix.
func namesMatch(list []string, name string) bool {
	return slices.ContainsFunc(list, func(p string) bool {
		p = strings.TrimSpace(p)
		if pre, ok := strings.CutSuffix(p, "*"); ok {
			return strings.HasPrefix(strings.ToLower(name), strings.ToLower(pre))
		}
		return strings.EqualFold(p, name)
	})
}

// optInPolicy says which opt-in tools are on: those tools.optIn names, those
// tools.enabled names exactly (a prefix there is no opt-in), and the teams
// category when tools.teams is set.
func optInPolicy(t settings.ToolsSettings) func(name, category string) bool {
	return func(name, category string) bool {
		if category == tools.CategoryTeams && t.Teams {
			return true
		}
		if namesMatch(t.OptIn, name) {
			return true
		}
		return slices.ContainsFunc(t.Enabled, func(p string) bool { return strings.EqualFold(strings.TrimSpace(p), name) })
	}
}

// UpdateSettings takes the client's workspace/didChangeConfiguration
// settings as the top settings layer.
func (s *Session) UpdateSettings(raw json.RawMessage) error {
	s.Settings.ApplyConfigurationChange(raw)
	for _, p := range s.Settings.Problems() {
		s.Log.Warn("a setting was ignored", "file", p.File, "key", p.Key, "why", p.Message)
	}
	return nil
}

// SetRoots replaces the workspace folders (workspace/didChangeWorkspaceFolders);
// the project settings files of the new folders are read.
func (s *Session) SetRoots(roots []string) {
	s.Workspace.SetRoots(roots)
	s.Settings.SetRoots(s.Workspace.Roots())
}

// AutoAllowed reports whether a call of t would run without a prompt for
// host, before rules about its input are looked at (listTools'
// autoAllowed). The permission checker decides; see Checker.AutoAllowed.
func (s *Session) AutoAllowed(host tools.Host, t tools.Tool) bool {
	return s.Permissions.AutoAllowed(host, t)
}

// settingsProblems are the settings files' problems and the trusted
// project's .mcp.json's: what it repeats (only the last counts), or why it
// cannot be read (its servers do not start, and only this says why).
func (s *Session) settingsProblems() []settings.Problem {
	problems := s.Settings.Problems()
	if s.MCP != nil {
		problems = append(problems, s.MCP.ProjectConfigProblems()...)
		if err := s.MCP.ProjectConfigError(); err != nil {
			problems = append(problems, settings.Problem{
				File:    filepath.Join(s.mcpRoot, toolmcp.ProjectConfigFile),
				Message: err.Error() + "; its MCP servers are not started. Fix the file, then reload the settings",
			})
		}
	}
	return problems
}

// Status is the session's part of toolhost/status: MCP servers, background
// tasks, the todo list, the settings problems, and where edits that need approval are
// reviewed ("dialog", or "editor" with edit.reviewInEditor).
func (s *Session) Status() map[string]any {
	editReview := "dialog"
	if s.Settings.Current().Edit.ReviewInEditor {
		editReview = "editor"
	}
	out := map[string]any{
		"editReview":       editReview,
		"mcpServers":       nonNilSlice(s.MCP.Status()),
		"backgroundTasks":  nonNilSlice(s.Tasks.List()),
		"todos":            nonNilSlice(s.Todos.Todos()),
		"settingsProblems": nonNilSlice(s.settingsProblems()),
		"trust":            s.Trust(),
		"teams":            s.Teams.Status(),
	}
	// Which engine searches folders, and how it is jailed (Grep).
	if e, ok := s.Registry.Lookup("Grep"); ok {
		if g, ok := e.Tool.(interface{ FolderSearch(context.Context) string }); ok {
			out["search"] = map[string]string{"grepFolders": g.FolderSearch(context.Background())}
		}
	}
	return out
}

func nonNilSlice[T any](v []T) []T {
	if v == nil {
		return []T{}
	}
	return v
}

// Close ends what the session started: it kills every background task's
// process group and stops the MCP servers. Safe to call more than once.
func (s *Session) Close() {
	s.closeOnce.Do(func() {
		// A reload under way finishes first, so it cannot start servers
		// after they were stopped.
		s.bg.Close()
		if s.MCP != nil {
			s.MCP.Close()
		}
		if s.Tasks != nil {
			if err := s.Tasks.Close(); err != nil {
				s.Log.Warn("background tasks did not all stop", "err", err)
			}
		}
	})
}

// newSessionID returns the session id hooks receive. It names the session
// and guards nothing, so math/rand/v2's generator (seeded by the runtime)
// makes it: crypto/rand's first use sets up the system's random state, a
// quarter of a millisecond on every start's path to its first reply.
func newSessionID() string {
	return fmt.Sprintf("%016x", rand.Uint64())
}

// taskSpillDir is where finished background tasks' output goes: the
// workspace's state folder, outside the workspace ("" for the temporary
// folder when there is none).
func taskSpillDir(root string) string {
	state, err := workspace.StateDir(root)
	if err != nil {
		return ""
	}
	return filepath.Join(state, "tasks")
}

// changesDir is where the change journal of the workspace rooted at root
// lives: its state folder, outside the workspace and its git, shared by
// every session of the workspace so that a restarted server still rewinds
// ("" when there is no state folder).
func changesDir(root string) string {
	state, err := workspace.StateDir(root)
	if err != nil {
		return ""
	}
	return filepath.Join(state, "changes")
}
