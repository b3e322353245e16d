package tools

import "sync"

// How each built-in tool compares with Claude Code 2.1's tool of the same
// name (measured against `claude mcp serve` and the schemas of
// sdk-tools.d.ts), for the tool reference. One place, so that the
// reference lists every tool and a new tool must say where it stands (a test
// in cmd/toolhost checks that every built-in tool has an entry).

// ClaudeCodeOnlyInToolhost marks a tool Claude Code does not have.
const ClaudeCodeOnlyInToolhost = "toolhost's own; Claude Code has no such tool."

// claudeCodeComparison maps a built-in tool's name to how it compares.
var claudeCodeComparison = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"Read": "Claude Code 2.1's limits: the whole file up to about 25,000 tokens with no cut lines, a partial first page " +
			"with a notice saying which offset and limit come next, an offset/limit range over the cap an error. Differences: " +
			"a whole-file read of a file over 256 KB gets the partial first page where Claude Code answers a size error " +
			"(the model gets content and the way on, rather than a retry); PDFs come back as extracted text plus page images " +
			"(Claude Code sends a PDF document block, which tool results here cannot carry); an open document is read from " +
			"the editor's unsaved buffer; a repeated Read of an unchanged file is answered in full (no \"file unchanged\" stub); " +
			"an image's pixel data is checked whole before it is sent (a PNG that needs no scaling by its chunk checksums and its " +
			"inflated data, anything else by a full decode), so one whose header reads over damaged pixel data is an error here " +
			"where Claude Code sends it and the API's refusal stays in the conversation.",
		"Write": "Same. A file changed since the Read is not overwritten, as in Claude Code; an existing file keeps its encoding " +
			"and BOM (UTF-8, UTF-8 with BOM, UTF-16LE with BOM) and one whose encoding cannot be kept exactly (Latin-1) is " +
			"refused, as in Claude Code. Differences: a UTF-16BE file (BOM FE FF) is read decoded and written back in UTF-16BE, " +
			"where Claude Code 2.1.330 shows its raw bytes and refuses to write it; the write goes through the editor (workspace/applyEdit) so the user can " +
			"undo it (a UTF-16 file the editor does not have open is written in its encoding by the server instead; one open in the editor is refused, with what to do); the result says when an encoding was kept.",
		"Edit": "Same matching: exact, or with curly quotes typed straight (new_string then takes the file's quote style); " +
			"unique unless replace_all; a file changed since the Read takes the edit when old_string still matches exactly " +
			"once there, with a note; notebooks refused in favour of NotebookEdit. Differences: edit.fuzzy (off by default) " +
			"allows whitespace-insensitive whole-line matches. Encodings as Write: UTF-16 files are edited and stay UTF-16, " +
			"a Latin-1 file is refused; a binary file is refused at once, even before a Read.",
		"Bash": "Same: cd carries over while inside the workspace, and only from a command that succeeded; a command still running at its timeout moves to the " +
			"background (one that only sleeps is killed); output over 30,000 characters keeps its start and the whole of it is " +
			"saved to a file to Read. Differences: stdout and stderr come combined in the order written (the structured stderr " +
			"is empty); nobody tells the model when a background command ends, since toolhost has no channel to the model " +
			"between calls: read it with TaskOutput; dangerouslyDisableSandbox is accepted and changes nothing.",
		"Glob": "Same matching (ripgrep's --glob: a pattern without a slash matches the name at any depth; ignored and hidden " +
			"files included) and the 100-path cap. Differences: newest first, where Claude Code's ripgrep --sort=modified " +
			"gives the oldest first (the files being worked on are the recent ones); the .git folder is skipped.",
		"Grep":       "Same options, modes and defaults (files_with_matches, head_limit 250); ripgrep when installed, else a Go search with the same output.",
		"TaskOutput": "Same. Also answers to BashOutput, Claude Code's earlier name (bash_id is taken as task_id; its filter is reported as ignored).",
		"TaskStop":   "Same. Also answers to KillShell, Claude Code's earlier name (shell_id).",
		"Monitor": "Same input and output. Differences: the model is not told of each event or of the deadline, since toolhost " +
			"has no channel to the model between calls: it reads the events with TaskOutput; stderr lines are events too.",
		"LS":      ClaudeCodeOnlyInToolhost,
		"Tree":    ClaudeCodeOnlyInToolhost,
		"SSHBash": ClaudeCodeOnlyInToolhost,
		"Diff":    ClaudeCodeOnlyInToolhost,
		"GetTime": ClaudeCodeOnlyInToolhost,
		"getDiagnostics": "The tool of Claude Code's IDE integration (mcp__ide__getDiagnostics, served by its VS Code and JetBrains " +
			"extensions), with the same name, input and JSON answer; uri may also be a path. Served here by any client that declares " +
			"experimental.toolhost.diagnostics, and to every agent of the session.",
		"LSP": "Same name, input, operations and answer as Claude Code 2.1's LSP tool (behind a setting there): its text shape per " +
			"operation and its structured {operation, result, filePath, resultCount, fileCount}. Differences: answered by the " +
			"language servers the editor already runs (Claude Code starts its own from plugins); results name each location's line " +
			"of code; results in git-ignored files are kept (Claude Code drops them, so a definition in node_modules reads as none); " +
			"positions are in the editor's encoding (UTF-16 in VS Code).",
		"Memory": ClaudeCodeOnlyInToolhost,
		// Off unless tools.optIn names them, so a default session lists Claude Code's tools.
		"QueryJSON":     ClaudeCodeOnlyInToolhost + " Off unless tools.optIn names it.",
		"GetEnv":        ClaudeCodeOnlyInToolhost + " Off unless tools.optIn names it.",
		"ListProcesses": ClaudeCodeOnlyInToolhost + " Off unless tools.optIn names it.",
		"HTTPRequest":   ClaudeCodeOnlyInToolhost + " Off unless tools.optIn names it.",
		"SendMessage": "Same input; messages reach agents of toolhost's built-in runner (a background Agent given a name, " +
			"or a team member). A field the schema lacks (type without tools.teams) is refused rather than dropped.",
		"TeamCreate":   "Claude Code's agent teams, off unless tools.teams is set.",
		"TeamDelete":   "Claude Code's agent teams, off unless tools.teams is set.",
		"NotebookEdit": "Same input and output fields; the change goes through the editor.",
		"ToolSearch": "Same input (query with select: or keywords, max_results) and the same idea: deferred tools are listed by " +
			"name when the client asks (toolhost/listTools deferred: true; over MCP the toolhost/deferredTools capability or toolhost mcp --deferred). Differences: which tools defer is the " +
			"tools.deferred setting; the keyword search ranks by name and description words.",
		"Skill": "Same input (skill, args) and the same SKILL.md folders (~/.claude/skills, a project's .claude/skills). " +
			"Differences: a project's skills are offered only once its folder is trusted (the trust question lists them), " +
			"and toolhost's own user config folder holds skills too; the skills are listed in the tool's description (bounded), " +
			"where Claude Code's CLI names them in the conversation and its MCP server lists none; a loaded skill's result is " +
			"its instructions, where Claude Code's answers the name and its CLI adds the instructions to the conversation.",
		"TodoWrite":  "Same. Claude Code 2.1 uses TaskCreate, TaskGet, TaskUpdate and TaskList instead; toolhost has both.",
		"TaskCreate": "Same input and output; the client gets the whole list (toolhost/taskList).",
		"TaskGet":    "Same, except that an unknown id is an error listing the ids there are (Claude Code answers task: null, which models tend to misread).",
		"TaskUpdate": "Same input and output; dependencies are kept on both sides, and a dependency on an unknown task is an error that changes nothing.",
		"TaskList":   "Same; blockedBy lists only unfinished blockers.",
		"Config": ClaudeCodeOnlyInToolhost + " It reads and writes toolhost's settings (Claude Code 2.1 changes its own with /config). permissions.defaultMode is " +
			"the saved default; reading it also gives the session's mode, so the two are never confused.",
		"ExitPlanMode":    "Same; the plan is the plan property or .toolhost/plan.md (the one file plan mode may write).",
		"EnterPlanMode":   "Same: asks the user, then plan mode for the session only. A client that cannot show dialogs enters without asking, since plan mode only restricts.",
		"AskUserQuestion": "Same.",
		"WebFetch":        "Same input; pages become Markdown, cached for 15 minutes.",
		"WebSearch":       "Same input; the search runs through DuckDuckGo's HTML page by default, or Brave or SearXNG by setting (Claude Code uses Anthropic's server-side search).",
		"Agent": "Same input. The sub-agent runs in the editor's model (toolhost/runAgent) or a built-in loop against an " +
			"OpenAI-compatible endpoint; isolation \"worktree\" works in the built-in runner, \"remote\" is refused. Without " +
			"run_in_background the call waits for the report (Claude Code backgrounds by default and notifies the model " +
			"later, which toolhost cannot).",
		"EnterWorktree": "Same input and output; worktrees go under .toolhost/worktrees/ (Claude Code: .claude/worktrees/), and " +
			"the session's first workspace root moves to the worktree.",
		"ExitWorktree":     "Same input and output; remove refuses uncommitted files and commits not in the original checkout unless discard_changes.",
		"ListMcpResources": "Same.",
		"ReadMcpResource":  "Same; binary contents are described by size rather than saved to a file.",
		"ReadMcpResourceDir": "Same input and output. The listing is built from the server's resources/list, since the Go MCP " +
			"SDK cannot send the resources/directory/read extension request Claude Code uses; servers that list their " +
			"resources give the same answer.",
		"RefreshMcpTools": "Same input and output.",
	}
})

// ClaudeCodeComparison says how a tool compares with Claude Code's; ok is
// false for a tool with no entry (MCP tools, tools added without one).
func ClaudeCodeComparison(name string) (text string, ok bool) {
	text, ok = claudeCodeComparison()[name]
	return text, ok
}
