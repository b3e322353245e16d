// Package builtin registers toolhost's built-in tools, family by family, in
// the order listTools shows them.
package builtin

import (
	"log/slog"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/agent"
	"github.com/toolhost/toolhost/tools/data"
	"github.com/toolhost/toolhost/tools/engine"
	"github.com/toolhost/toolhost/tools/extras"
	"github.com/toolhost/toolhost/tools/fs"
	"github.com/toolhost/toolhost/tools/intel"
	"github.com/toolhost/toolhost/tools/providers"
	"github.com/toolhost/toolhost/tools/search"
	"github.com/toolhost/toolhost/tools/shell"
	"github.com/toolhost/toolhost/tools/skills"
	"github.com/toolhost/toolhost/tools/state"
	"github.com/toolhost/toolhost/tools/sys"
	"github.com/toolhost/toolhost/tools/tasks"
	"github.com/toolhost/toolhost/tools/team"
	"github.com/toolhost/toolhost/tools/toolsearch"
	"github.com/toolhost/toolhost/tools/web"
	"github.com/toolhost/toolhost/tools/worktree"
	"github.com/toolhost/toolhost/workspace"
)

// Deps are the long-lived dependencies the built-in tools are built with.
type Deps struct {
	Workspace *workspace.Workspace
	Log       *slog.Logger
	// Settings returns the current merged settings; it changes when the
	// client sends workspace/didChangeConfiguration, so tools call it per call.
	Settings func() *settings.Settings
	// SettingsStore is the session's settings store; Config writes
	// through it. Config and ExitPlanMode are registered only when it and
	// Modes are set.
	SettingsStore *settings.Store
	// Modes reads and changes the session's permission mode (the
	// permission checker); ExitPlanMode and Config switch it.
	Modes tools.ModeController
	// Todos keeps the session's todo list (TodoWrite writes it, the session
	// reports it in toolhost/status); nil gives TodoWrite a store of its own.
	Todos *state.TodoStore
	// TaskBoard keeps the session's task list (TaskCreate, TaskGet,
	// TaskUpdate, TaskList); nil gives those tools one of their own.
	TaskBoard *state.TaskBoard
	// Tasks runs the session's background commands; the session creates it
	// and closes it at its end (killing every task's process group). nil
	// gives Bash a manager of its own that nothing closes.
	Tasks *tasks.Manager
	// Pipeline returns the session's pipeline, which is built after the
	// registry; Agent's built-in runner makes the sub-agent's calls through
	// it. nil leaves Agent only the client's runner (toolhost/runAgent).
	Pipeline func() *engine.Pipeline
	// Isolated builds the pipeline of a sub-agent in a worktree of its own
	// (Agent's isolation "worktree"); nil refuses isolation.
	Isolated agent.IsolatedPipeline
	// Teams keeps the mailboxes of named background agents and the teams
	// (SendMessage, TeamCreate); the session reports it in toolhost/status.
	// nil gives the tools a hub of their own.
	Teams *team.Hub
}

// Register adds every built-in tool to reg.
func Register(reg *tools.Registry, d Deps) {
	_ = d
	reg.Register(tools.CategoryCore, fs.NewRead(d.Workspace), fs.NewWrite(d.Workspace), fs.NewEdit(d.Workspace, d.Settings))
	taskManager := d.Tasks
	if taskManager == nil {
		taskManager = tasks.NewManager(tasks.Options{Log: d.Log})
	}
	bash := shell.NewBash(d.Workspace, d.Settings, taskManager, d.Log)
	// On Windows without Git Bash, Claude Code's PowerShell tool runs
	// commands instead; Bash, and Monitor, which runs bash, are not offered.
	var shellTool tools.Tool = bash
	taskTools := []tools.Tool{tasks.NewTaskOutput(taskManager, d.Settings), tasks.NewTaskStop(taskManager)}
	if shell.OfferPowerShell() {
		shellTool = shell.NewPowerShell(d.Workspace, d.Settings, taskManager, d.Log)
	} else {
		taskTools = append(taskTools, shell.NewMonitor(bash))
	}
	reg.Register(tools.CategoryCore, shellTool, search.NewGlob(d.Workspace), search.NewGrep(d.Workspace, search.FindRipgrep()).WithSettings(d.Settings).WithLog(d.Log))
	reg.Register(tools.CategoryTasks, taskTools...)
	reg.Register(tools.CategoryExtras, search.NewLS(d.Workspace), search.NewTree(d.Workspace), shell.NewSSHBash(d.Settings))
	reg.Register(tools.CategoryNotebook, fs.NewNotebookEdit(d.Workspace))
	reg.Register(tools.CategoryExtras, fs.NewDiff())
	todos := d.Todos
	if todos == nil {
		todos = state.NewTodoStore()
	}
	reg.Register(tools.CategoryState, state.NewTodoWrite(todos))
	board := d.TaskBoard
	if board == nil {
		board = state.NewTaskBoard()
	}
	reg.Register(tools.CategoryState, state.NewTaskCreate(board), state.NewTaskGet(board), state.NewTaskUpdate(board), state.NewTaskList(board))
	if d.SettingsStore != nil && d.Modes != nil {
		reg.Register(tools.CategoryState, state.NewConfig(d.SettingsStore, d.Workspace.Root, d.Modes), state.NewExitPlanMode(d.Modes, d.Workspace.Root),
			state.NewEnterPlanMode(d.Modes))
	}
	reg.Register(tools.CategoryState, state.NewAskUserQuestion(), skills.New(d.Workspace, d.Settings), toolsearch.New(reg, d.Settings))
	reg.Register(tools.CategoryNetwork, web.NewWebFetch(d.Settings), web.NewWebSearch(d.Settings))
	hub := d.Teams
	if hub == nil {
		hub = team.NewHub()
	}
	agentTool := agent.New(agent.Options{
		Settings: d.Settings, Pipeline: d.Pipeline, Tasks: taskManager, Root: d.Workspace.Root, Log: d.Log,
		PostOffice: hub,
		Isolated:   d.Isolated,
	})
	reg.Register(tools.CategoryAgent, agentTool)
	// SendMessage is one of Claude Code's default tools; the team tools are
	// opt-in (tools.teams).
	reg.Register(tools.CategoryTeams, team.NewSendMessage(hub, d.Settings))
	reg.RegisterOptIn(tools.CategoryTeams, team.NewTeamCreate(hub, agentTool, taskManager), team.NewTeamDelete(hub, taskManager))
	reg.Register(tools.CategoryExtras, extras.NewGetTime(nil), extras.NewMemory(d.Workspace))
	// Answered by the editor's language servers; unavailable, saying so,
	// where the client cannot report them.
	reg.Register(tools.CategoryExtras, intel.NewGetDiagnostics(d.Workspace), intel.NewLSP(d.Workspace))
	wt := worktree.NewSession(d.Workspace, func(root string) bool {
		return d.Settings != nil && d.Settings().Trust.Trusted(root)
	})
	reg.Register(tools.CategoryState, worktree.NewEnter(wt), worktree.NewExit(wt))
	registerOptIn(reg, d)
	// ask_<name> for each configured provider, following the settings.
	syncer := providers.NewSyncer(reg, tools.CategoryAgent, nil)
	if d.Settings != nil {
		syncer.Sync(d.Settings())
	}
	if d.SettingsStore != nil {
		d.SettingsStore.OnChange(syncer.Sync)
	}
}

// registerOptIn adds the tools of the other seed systems that Claude Code
// lacks. They are off until tools.optIn (or tools.enabled) names them, so a
// default session lists what a Claude-Code-trained model expects.
func registerOptIn(reg *tools.Registry, d Deps) {
	reg.RegisterOptIn(tools.CategoryExtras, data.NewQueryJSON(d.Workspace),
		sys.NewGetEnv(d.Settings), sys.NewListProcesses())
	reg.RegisterOptIn(tools.CategoryNetwork, web.NewHTTPRequest(d.Settings))
}
