// Package intel gives the agent what the editor's language servers know:
// the getDiagnostics tool, Claude Code's LSP tool, and the diagnostics added
// to the result of an edit applied through the editor. The client answers
// (toolhost/diagnostics, toolhost/languageFeature through the call's
// tools.LanguageIntel); this package asks, waits within its bounds and
// formats the answers for the model, so every client's answers read alike.
package intel

import (
	"path/filepath"
	"strings"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

// unservable is why h cannot serve the language tool name, whose answers
// come from the client's capability declared as capability (reported by
// can): "" when it can. A host without a LanguageIntel has no editor at
// all (toolhost mcp on its own, toolhost call); an editor client that
// did not declare the capability has one that cannot answer. Each says
// what the model can do instead (alternative).
func unservable(h tools.Host, name, capability string, can func(tools.LanguageIntel) bool, alternative string) string {
	li, ok := languageIntel(h)
	if !ok {
		return name + " is answered by an editor's language servers, and this session runs with no editor, so it does not offer " + name +
			". Start the agent with `toolhost mcp --attach` from inside an editor session that runs toolhost, or " + alternative + " instead."
	}
	if !can(li) {
		return name + " is answered by the editor's language servers, and this editor's toolhost client cannot ask them (it did not declare " +
			"experimental.toolhost." + capability + "), so this session does not offer " + name + ". " + strings.ToUpper(alternative[:1]) + alternative[1:] + " instead."
	}
	return ""
}

// Unservable implements tools.HostBound: getDiagnostics needs a client
// that reports diagnostics.
func (*GetDiagnostics) Unservable(h tools.Host) string {
	return unservable(h, "getDiagnostics", "diagnostics", tools.LanguageIntel.CanReportDiagnostics,
		"run the project's build or type checker with Bash")
}

// Unservable implements tools.HostBound: LSP needs a client that asks its
// language servers.
func (*LSP) Unservable(h tools.Host) string {
	return unservable(h, "LSP", "languageFeatures", tools.LanguageIntel.CanAnswerLanguageFeatures,
		"use Grep and Read to find definitions and uses")
}

// languageIntel is the host's LanguageIntel when it has one.
func languageIntel(h tools.Host) (tools.LanguageIntel, bool) {
	li, ok := h.(tools.LanguageIntel)
	return li, ok
}

// shownPath is how a result names the file of uri: relative to the
// workspace folder holding it, else absolute (a library's declarations).
func shownPath(ws *workspace.Workspace, uri string) string {
	p, err := workspace.URIToPath(uri)
	if err != nil {
		return uri
	}
	for _, root := range ws.Roots() {
		rel, err := filepath.Rel(root, p)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return p
}

// insideWorkspace reports whether the file of uri is in a workspace folder:
// only such files are read for lines of context.
func insideWorkspace(ws *workspace.Workspace, uri string) (string, bool) {
	p, err := workspace.URIToPath(uri)
	if err != nil {
		return "", false
	}
	return p, !filepath.IsAbs(shownPath(ws, uri))
}
