package tools

import (
	"strings"
	"testing"
)

// TestDefaultDeferredIsClaudeCodes states which of toolhost's tools
// Claude Code 2.1.330 defers by default (its tools marked shouldDefer,
// and every MCP tool) and which it always lists whole; toolhost's own
// tools (no Claude Code counterpart) are toolhost's choice.
func TestDefaultDeferredIsClaudeCodes(t *testing.T) {
	cases := []struct {
		name     string
		deferred bool
	}{
		// Deferred by Claude Code.
		{"mcp__github__create_issue", true},
		{"NotebookEdit", true},
		{"WebFetch", true},
		{"WebSearch", true},
		{"TodoWrite", true},
		{"TaskCreate", true},
		{"TaskGet", true},
		{"TaskUpdate", true},
		{"TaskList", true},
		{"TaskStop", true},
		{"EnterPlanMode", true},
		{"ExitPlanMode", true},
		{"EnterWorktree", true},
		{"ExitWorktree", true},
		{"Monitor", true},
		{"LSP", true},
		{"SendMessage", true},
		{"ListMcpResources", true},
		{"ReadMcpResource", true},
		{"ReadMcpResourceDir", true},
		// Listed whole by Claude Code.
		{"Bash", false},
		{"Read", false},
		{"Write", false},
		{"Edit", false},
		{"Glob", false},
		{"Grep", false},
		{"Agent", false},
		{"Skill", false},
		{"AskUserQuestion", false},
		{"TaskOutput", false},
		{"RefreshMcpTools", false},
		{ToolSearchName, false},
		// toolhost's own: every one defers (TestToolhostsOwnToolsDefer).
		{"Memory", true},
		{"Config", true},
		{"LS", true},
		{"Tree", true},
		{"Diff", true},
		{"GetTime", true},
		{"TeamCreate", true},
		{"TeamDelete", true},
		{"SSHBash", true},
		// Claude Code's IDE integration lists it whole.
		{"getDiagnostics", false},
	}
	for _, tc := range cases {
		if got := IsDeferred(tc.name, nil); got != tc.deferred {
			t.Errorf("IsDeferred(%s) with the defaults = %v, want %v", tc.name, got, tc.deferred)
		}
	}
}

// TestToolhostsOwnToolsDefer: every tool Claude Code lacks (marked so in
// claudeCodeComparison) is deferred by default, so a new one of toolhost's
// own cannot land listed whole by accident.
func TestToolhostsOwnToolsDefer(t *testing.T) {
	for name, comparison := range claudeCodeComparison() {
		if strings.HasPrefix(comparison, ClaudeCodeOnlyInToolhost) && !IsDeferred(name, nil) {
			t.Errorf("%s is toolhost's own but not in DefaultDeferred", name)
		}
	}
}
