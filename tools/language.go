package tools

import (
	"context"
	"encoding/json"
	"errors"
)

// LanguageIntel is implemented by hosts whose client can report what the
// editor's language servers know: diagnostics (toolhost/diagnostics) and
// navigation (toolhost/languageFeature). It is optional, like AgentRunner:
// tools find it by a type assertion on the call's Host, and a host without
// it, or whose client did not declare the capability, makes the language
// tools unavailable.
type LanguageIntel interface {
	// CanReportDiagnostics reports experimental.toolhost.diagnostics.
	CanReportDiagnostics() bool
	// Diagnostics asks the client for the diagnostics of the given file
	// URIs (all files it has diagnostics for when uris is empty). With
	// waitMs > 0 the client first waits, at most that long, until the
	// diagnostics of those files changed after the last edit it applied to
	// them and settled.
	Diagnostics(ctx context.Context, req DiagnosticsRequest) ([]FileDiagnostics, error)
	// CanAnswerLanguageFeatures reports experimental.toolhost.languageFeatures.
	CanAnswerLanguageFeatures() bool
	// LanguageFeature asks the client's language servers one navigation
	// question and returns their answer in LSP's shape (Location[],
	// Hover, DocumentSymbol[] or SymbolInformation[], CallHierarchyItem[],
	// CallHierarchyIncomingCall[] or CallHierarchyOutgoingCall[]; null when
	// there is none).
	LanguageFeature(ctx context.Context, req LanguageFeatureRequest) (json.RawMessage, error)
}

// ErrNoLanguageIntel means the client cannot answer language questions.
var ErrNoLanguageIntel = errors.New("the client does not report the editor's language intelligence")

// DiagnosticsRequest is the params of toolhost/diagnostics.
type DiagnosticsRequest struct {
	// URIs are file URIs; empty asks for every file.
	URIs []string `json:"uris,omitempty"`
	// WaitMs, when positive, bounds the client's wait for the files'
	// diagnostics to change after its last applied edit and to settle.
	WaitMs int `json:"waitMs,omitempty"`
	// FirstWaitMs, on the request made before an edit is applied (the
	// baseline), is the edit's bound: a client that has had no report yet
	// for a file may wait, at most that long, for its language server's
	// first before taking the edit, so that a late answer to the file's
	// opening does not pass for the edit's; what it waits comes off WaitMs.
	FirstWaitMs int `json:"firstWaitMs,omitempty"`
}

// FileDiagnostics are the diagnostics of one file, as the client reports
// them (toolhost/diagnostics result items).
type FileDiagnostics struct {
	URI         string       `json:"uri"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// Diagnostic is one LSP diagnostic. Positions are 0-based in the
// connection's position encoding.
type Diagnostic struct {
	Range    LSPRange `json:"range"`
	Severity int      `json:"severity,omitempty"` // 1 error, 2 warning, 3 information, 4 hint
	// Code is a number or a string, or absent.
	Code    json.RawMessage `json:"code,omitempty"`
	Source  string          `json:"source,omitempty"`
	Message string          `json:"message"`
}

// LSPRange is a range of LSP positions.
type LSPRange struct {
	Start LSPPosition `json:"start"`
	End   LSPPosition `json:"end"`
}

// LSPPosition is a 0-based LSP position.
type LSPPosition struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Language feature operations: the operation names of Claude Code's LSP
// tool, sent as they are in toolhost/languageFeature.
const (
	OpGoToDefinition       = "goToDefinition"
	OpFindReferences       = "findReferences"
	OpHover                = "hover"
	OpDocumentSymbol       = "documentSymbol"
	OpWorkspaceSymbol      = "workspaceSymbol"
	OpGoToImplementation   = "goToImplementation"
	OpPrepareCallHierarchy = "prepareCallHierarchy"
	OpIncomingCalls        = "incomingCalls"
	OpOutgoingCalls        = "outgoingCalls"
)

// LanguageFeatureRequest is the params of toolhost/languageFeature.
type LanguageFeatureRequest struct {
	Operation string      `json:"operation"`
	URI       string      `json:"uri"`
	Position  LSPPosition `json:"position"`
	// Query is workspaceSymbol's search text.
	Query string `json:"query,omitempty"`
	// TimeoutMs bounds the client's wait for its language servers
	// (loading the file and letting its server attach included).
	TimeoutMs int `json:"timeoutMs,omitempty"`
}
