package tools

import "strings"

// Deferred tools, as Claude Code defers them: a listing that asks for it
// names these tools only, and the model fetches a definition with
// ToolSearch when it needs the tool. With dozens of MCP tools, their
// schemas are most of a request's tool list.

// DefaultDeferred are the tools deferred unless the tools.deferred setting
// says otherwise: Claude Code's defaults for its own tools (every MCP tool
// and the built-ins it marks to defer, as of 2.1.330), then every tool of
// toolhost's own. Claude Code's defaults say nothing about tools it lacks;
// a model trained on Claude Code does not know them and finds them with
// ToolSearch when it needs one, so listing them whole would cost every
// request their definitions for calls that rarely come.
// TestToolhostsOwnToolsDefer keeps the second part in step with the tools
// claudeCodeComparison marks as toolhost's own.
var DefaultDeferred = []string{
	"mcp__*",
	"NotebookEdit", "WebFetch", "WebSearch", "TodoWrite",
	"TaskCreate", "TaskGet", "TaskUpdate", "TaskList", "TaskStop",
	"EnterPlanMode", "ExitPlanMode", "EnterWorktree", "ExitWorktree", "Monitor", "LSP", "SendMessage",
	"ListMcpResources", "ReadMcpResource", "ReadMcpResourceDir",
	// toolhost's own.
	"Memory", "Config", "LS", "Tree", "Diff", "GetTime", "SSHBash",
	"QueryJSON", "GetEnv", "ListProcesses", "HTTPRequest", "TeamCreate", "TeamDelete",
}

// ToolSearchName is the tool that loads deferred tools' definitions; it is
// never deferred itself.
const ToolSearchName = "ToolSearch"

// IsDeferred reports whether the tool named name is deferred under
// patterns (the tools.deferred setting; nil means DefaultDeferred). A
// pattern is a tool name, or a prefix followed by "*".
func IsDeferred(name string, patterns []string) bool {
	if name == ToolSearchName {
		return false
	}
	if patterns == nil {
		patterns = DefaultDeferred
	}
	for _, p := range patterns {
		if prefix, ok := strings.CutSuffix(p, "*"); ok {
			if strings.HasPrefix(name, prefix) {
				return true
			}
		} else if strings.EqualFold(p, name) {
			return true
		}
	}
	return false
}

// ListDefinition is a tool's entry in a listing: its whole definition in
// format, or, when the listing defers and patterns defer the tool, its name
// alone (with deferred: true), to be loaded with ToolSearch.
func ListDefinition(t Tool, format string, deferring bool, patterns []string) (map[string]any, error) {
	if deferring && IsDeferred(t.Name(), patterns) {
		return map[string]any{"name": t.Name(), "deferred": true}, nil
	}
	return Definition(t, format)
}
