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

// diagnosticsUnavailable and featuresUnavailable are the errors of a call
// whose host cannot answer: toolhost mcp on its own, or an editor client
// that did not declare the capability.
const (
	diagnosticsUnavailable = "diagnostics come from the editor's language servers, and this session's client cannot report them (it did not declare experimental.toolhost.diagnostics; toolhost mcp without an editor has none). Run the project's build or type checker with Bash instead."
	featuresUnavailable    = "LSP is answered by the editor's language servers, and this session's client cannot ask them (it did not declare experimental.toolhost.languageFeatures; toolhost mcp without an editor has none). Use Grep and Read to find definitions and uses instead."
)

// WithoutAnEditor is, for the tools only an editor answers, the error a
// call of one gets from a server that has no editor (toolhost mcp on its
// own), which does not offer them; ok is false for every other tool.
func WithoutAnEditor(name string) (why string, ok bool) {
	switch name {
	case "LSP", "getDiagnostics":
		return name + " is answered by an editor's language servers, and this toolhost mcp runs with no editor, so it does not offer " +
			name + ". Start the agent with `toolhost mcp --attach` from inside an editor session that runs toolhost, or use Grep and Read " +
			"(and the project's build or type checker with Bash) instead.", true
	}
	return "", false
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
