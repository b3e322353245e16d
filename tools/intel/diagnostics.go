package intel

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

// Diagnostic severities (LSP's numbers).
const (
	severityError   = 1
	severityWarning = 2
	severityInfo    = 3
	severityHint    = 4
)

// maxDiagnosticsText caps the diagnostics added to an edit's result, as
// Claude Code caps its own reminder.
const maxDiagnosticsText = 4000

// diagnosticsTimeout bounds one getDiagnostics call.
const diagnosticsTimeout = 10 * time.Second

// severityName is the word Claude Code's IDE integration uses.
func severityName(s int) string {
	switch s {
	case severityError:
		return "Error"
	case severityWarning:
		return "Warning"
	case severityInfo:
		return "Info"
	case severityHint:
		return "Hint"
	}
	return "Error"
}

// severityMark is the mark of a diagnostic in the model's text.
func severityMark(s int) string {
	switch s {
	case severityError:
		return "✖"
	case severityWarning:
		return "⚠"
	case severityInfo:
		return "ℹ"
	case severityHint:
		return "★"
	}
	return "●"
}

// codeText is a diagnostic's code as text ("" when it has none).
func codeText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// diagnosticLine is one diagnostic as the model reads it: the mark,
// 1-based position, message, code and source.
func diagnosticLine(d tools.Diagnostic) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  %s [Line %d:%d] %s", severityMark(d.Severity), d.Range.Start.Line+1, d.Range.Start.Character+1, d.Message)
	if c := codeText(d.Code); c != "" {
		fmt.Fprintf(&b, " [%s]", c)
	}
	if d.Source != "" {
		fmt.Fprintf(&b, " (%s)", d.Source)
	}
	return b.String()
}

// formatFiles lists diagnostics by file, capped at maxDiagnosticsText.
func formatFiles(ws *workspace.Workspace, files []tools.FileDiagnostics) string {
	var parts []string
	for _, f := range files {
		lines := []string{shownPath(ws, f.URI) + ":"}
		for _, d := range f.Diagnostics {
			lines = append(lines, diagnosticLine(d))
		}
		parts = append(parts, strings.Join(lines, "\n"))
	}
	text := strings.Join(parts, "\n")
	if len(text) > maxDiagnosticsText {
		cut := maxDiagnosticsText - len("…[truncated]")
		for cut > 0 && !utf8Start(text[cut]) {
			cut--
		}
		text = text[:cut] + "…[truncated]"
	}
	return text
}

// utf8Start reports whether b starts a UTF-8 sequence.
func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// diagnosticKey identifies a diagnostic across an edit: lines move when
// text is inserted above, so the position is left out.
func diagnosticKey(d tools.Diagnostic) string {
	return fmt.Sprintf("%d\x00%s\x00%s\x00%s", d.Severity, codeText(d.Code), d.Source, d.Message)
}

// splitNew separates the diagnostics of after into those not reported
// before (counting duplicates: a second identical error is new) and those
// that were, keeping only the severities kept.
func splitNew(before, after []tools.FileDiagnostics, keep func(int) bool) (fresh, old []tools.FileDiagnostics) {
	seen := map[string]map[string]int{}
	for _, f := range before {
		m := seen[f.URI]
		if m == nil {
			m = map[string]int{}
			seen[f.URI] = m
		}
		for _, d := range f.Diagnostics {
			m[diagnosticKey(d)]++
		}
	}
	for _, f := range after {
		var n, o []tools.Diagnostic
		m := seen[f.URI]
		for _, d := range f.Diagnostics {
			if !keep(d.Severity) {
				continue
			}
			if k := diagnosticKey(d); m[k] > 0 {
				m[k]--
				o = append(o, d)
				continue
			}
			n = append(n, d)
		}
		if len(n) > 0 {
			fresh = append(fresh, tools.FileDiagnostics{URI: f.URI, Diagnostics: n})
		}
		if len(o) > 0 {
			old = append(old, tools.FileDiagnostics{URI: f.URI, Diagnostics: o})
		}
	}
	return fresh, old
}

// getDiagnosticsParams is the input of Claude Code's IDE getDiagnostics.
type getDiagnosticsParams struct {
	URI string `json:"uri,omitempty" jsonschema:"The file to get diagnostics for: a file:// URI or a path (absolute or relative to the workspace). Leave it out for every file the editor has diagnostics for."`
}

var getDiagnosticsSchema = tools.SchemaOf[getDiagnosticsParams](nil)

// IDEDiagnostic is one diagnostic in the shape Claude Code's IDE
// integrations return from getDiagnostics.
type IDEDiagnostic struct {
	Message  string         `json:"message"`
	Severity string         `json:"severity"`
	Range    tools.LSPRange `json:"range"`
	Source   string         `json:"source,omitempty"`
	Code     string         `json:"code,omitempty"`
}

// IDEFileDiagnostics are one file's diagnostics in that shape.
type IDEFileDiagnostics struct {
	URI         string          `json:"uri"`
	Diagnostics []IDEDiagnostic `json:"diagnostics"`
}

// IDEShape converts the client's diagnostics to the getDiagnostics shape
// of Claude Code's IDE integrations (severity as a word, code as text).
func IDEShape(files []tools.FileDiagnostics) []IDEFileDiagnostics {
	out := make([]IDEFileDiagnostics, 0, len(files))
	for _, f := range files {
		ds := make([]IDEDiagnostic, 0, len(f.Diagnostics))
		for _, d := range f.Diagnostics {
			ds = append(ds, IDEDiagnostic{Message: d.Message, Severity: severityName(d.Severity), Range: d.Range, Source: d.Source, Code: codeText(d.Code)})
		}
		out = append(out, IDEFileDiagnostics{URI: f.URI, Diagnostics: ds})
	}
	return out
}

// GetDiagnostics reports the editor's diagnostics for a file or for every
// file. The name and input are those of Claude Code's IDE tool, which
// models trained on Claude Code call after their edits.
type GetDiagnostics struct {
	ws *workspace.Workspace
}

// NewGetDiagnostics returns the getDiagnostics tool.
func NewGetDiagnostics(ws *workspace.Workspace) *GetDiagnostics { return &GetDiagnostics{ws: ws} }

func (*GetDiagnostics) Name() string { return "getDiagnostics" }
func (*GetDiagnostics) Description() string {
	return "Get the diagnostics (errors, warnings) the editor's language servers report, for one file or for every file the editor has diagnostics for. Use it after changing code to check for type errors without running a build."
}
func (*GetDiagnostics) InputSchema() json.RawMessage { return getDiagnosticsSchema.JSON() }
func (*GetDiagnostics) SideEffect() tools.SideEffect { return tools.SideEffectNone }

// Access implements tools.AccessDescriber: the one file read, if any.
func (t *GetDiagnostics) Access(input json.RawMessage) tools.Access {
	var p getDiagnosticsParams
	if json.Unmarshal(input, &p) != nil || p.URI == "" {
		return tools.Access{}
	}
	if path, err := t.path(p.URI); err == nil {
		return tools.Access{ReadPaths: []string{path}}
	}
	return tools.Access{}
}

// path is the absolute path of a URI or path from the input.
func (t *GetDiagnostics) path(given string) (string, error) {
	if strings.HasPrefix(given, "file:") {
		return workspace.URIToPath(given)
	}
	return t.ws.Resolve(given)
}

// Docs implements tools.Documented.
func (*GetDiagnostics) Docs() tools.Docs {
	return tools.Docs{
		Short: "The editor's diagnostics (errors, warnings) for one file or the workspace, from its language servers.",
		Long: "Named and shaped like Claude Code's IDE tool `getDiagnostics`, which models trained on Claude Code " +
			"call after their edits: `uri` (a file URI, or here also a path) or nothing for every file. The answer " +
			"is the same JSON list of `{uri, diagnostics: [{message, severity, range, source, code}]}` (0-based " +
			"range). It needs an editor client that reports diagnostics (experimental.toolhost.diagnostics); " +
			"elsewhere it is not offered, and a call answers an error saying why and what to use instead.",
		Examples: []tools.Example{
			{Title: "One file", Input: json.RawMessage(`{"uri":"src/app.ts"}`)},
			{Title: "Every file", Input: json.RawMessage(`{}`)},
		},
	}
}

// Execute asks the client for the diagnostics, without waiting.
func (t *GetDiagnostics) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var p getDiagnosticsParams
	if err := json.Unmarshal(call.Input, &p); err != nil {
		return tools.ErrorResult("the input is not a valid getDiagnostics input (%v); send {} or {\"uri\": \"src/app.ts\"}.", err), nil
	}
	if why := t.Unservable(call.Host); why != "" {
		return tools.ErrorResult("%s", why), nil
	}
	li, _ := languageIntel(call.Host)
	var req tools.DiagnosticsRequest
	if p.URI != "" {
		path, err := t.path(p.URI)
		if err != nil {
			return tools.ErrorResult("%q is not a file path or file URI (%v); give a path such as src/app.ts, or leave uri out for every file.", p.URI, err), nil
		}
		req.URIs = []string{workspace.PathToURI(path)}
	}
	ctx, cancel := context.WithTimeout(ctx, diagnosticsTimeout)
	defer cancel()
	files, err := li.Diagnostics(ctx, req)
	if err != nil {
		return tools.ErrorResult("the editor did not report its diagnostics (%v). Try again, or run the project's type checker with Bash.", err), nil
	}
	sort.SliceStable(files, func(i, j int) bool { return files[i].URI < files[j].URI })
	shaped := IDEShape(files)
	text, err := json.MarshalIndent(shaped, "", "  ")
	if err != nil {
		return nil, err
	}
	res := tools.TextResult(string(text))
	res.Structured = shaped
	return res, nil
}
