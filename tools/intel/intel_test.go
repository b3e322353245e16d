package intel

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

// fakeEditor is a Host whose client applies every edit and reports the
// scripted diagnostics: before the first edit, then after.
type fakeEditor struct {
	tools.NoHost
	before, after []tools.FileDiagnostics
	// stall makes the answer after the edit wait for its context,
	// stallBefore the answer before it.
	stall, stallBefore bool
	applied            int
	asked              []tools.DiagnosticsRequest
	// budgets holds, per request, how long its context had left when it
	// came (-1 for no deadline).
	budgets []time.Duration
	feature json.RawMessage
}

func (*fakeEditor) CanApplyEdit() bool { return true }
func (f *fakeEditor) ApplyEdit(context.Context, *workspace.ApplyWorkspaceEditParams) (*workspace.ApplyWorkspaceEditResult, error) {
	f.applied++
	return &workspace.ApplyWorkspaceEditResult{Applied: true}, nil
}
func (*fakeEditor) CanReportDiagnostics() bool      { return true }
func (*fakeEditor) CanAnswerLanguageFeatures() bool { return true }
func (f *fakeEditor) Diagnostics(ctx context.Context, req tools.DiagnosticsRequest) ([]tools.FileDiagnostics, error) {
	f.asked = append(f.asked, req)
	budget := time.Duration(-1)
	if d, ok := ctx.Deadline(); ok {
		budget = time.Until(d)
	}
	f.budgets = append(f.budgets, budget)
	if f.applied == 0 {
		if f.stallBefore {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return f.before, nil
	}
	if f.stall {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return f.after, nil
}
func (f *fakeEditor) LanguageFeature(context.Context, tools.LanguageFeatureRequest) (json.RawMessage, error) {
	return f.feature, nil
}

func diag(sev, line int, code, msg string) tools.Diagnostic {
	return tools.Diagnostic{Severity: sev, Message: msg, Source: "ts", Code: json.RawMessage(code),
		Range: tools.LSPRange{Start: tools.LSPPosition{Line: line, Character: 6}}}
}

func TestFeedbackAddsTheEditorsDiagnostics(t *testing.T) {
	root := t.TempDir()
	ws := workspace.New(root)
	uri := workspace.PathToURI(filepath.Join(root, "src", "app.ts"))
	typeErr := diag(1, 2, "2322", "Type 'string' is not assignable to type 'number'.")
	unused := diag(2, 0, `"6133"`, "'x' is declared but never used.")
	cases := []struct {
		name          string
		mode          string
		before, after []tools.Diagnostic
		stall         bool
		stallBefore   bool
		want, not     []string
	}{
		{name: "a new error", mode: "on", after: []tools.Diagnostic{typeErr},
			want: []string{"<new-diagnostics>The following new diagnostic issues were detected:\nsrc/app.ts:\n  ✖ [Line 3:7] Type 'string' is not assignable to type 'number'. [2322] (ts)\n</new-diagnostics>"}},
		{name: "fixed: nothing added", mode: "on", before: []tools.Diagnostic{typeErr}, not: []string{"diagnostic"}},
		{name: "an old error stays, not new", mode: "on", before: []tools.Diagnostic{typeErr}, after: []tools.Diagnostic{typeErr},
			want: []string{"<diagnostics>Reported before this edit and still reported:\nsrc/app.ts:\n  ✖ [Line 3:7]"}, not: []string{"<new-diagnostics>"}},
		{name: "warnings with on", mode: "on", after: []tools.Diagnostic{unused}, want: []string{"⚠ [Line 1:7] 'x' is declared but never used. [6133] (ts)"}},
		{name: "no warnings with errors", mode: "errors", after: []tools.Diagnostic{unused, typeErr}, want: []string{"[2322]"}, not: []string{"6133"}},
		{name: "off adds nothing", mode: "off", after: []tools.Diagnostic{typeErr}, not: []string{"diagnostic"}},
		{name: "a client past the bound adds nothing", mode: "on", stall: true, not: []string{"diagnostic"}},
		// The wait for the diagnostics before the edit counts against the
		// same bound: the whole never exceeds it.
		{name: "a client stalling before the edit stays within the bound", mode: "on", stallBefore: true, stall: true, not: []string{"diagnostic"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := settings.Defaults()
			s.Edit.Diagnostics = tc.mode
			s.Edit.DiagnosticsWaitMs = 300
			ed := &fakeEditor{stall: tc.stall, stallBefore: tc.stallBefore,
				before: []tools.FileDiagnostics{{URI: uri, Diagnostics: tc.before}},
				after:  []tools.FileDiagnostics{{URI: uri, Diagnostics: tc.after}}}
			fb := NewFeedback(ws, func() *settings.Settings { return s }, nil)
			host, after := fb.Wrap(ed)
			if tc.mode == "off" {
				if after != nil {
					t.Fatal("edit.diagnostics off still wraps the host")
				}
				return
			}
			edit := &workspace.ApplyWorkspaceEditParams{Edit: workspace.WorkspaceEdit{DocumentChanges: []workspace.DocumentChange{
				{TextDocumentEdit: &workspace.TextDocumentEdit{TextDocument: workspace.VersionedTextDocumentIdentifier{URI: uri}}}}}}
			if _, err := host.ApplyEdit(context.Background(), edit); err != nil {
				t.Fatal(err)
			}
			res := after(context.Background(), tools.TextResult("The file src/app.ts has been updated."))
			// The bound is checked on what each request was given, not on
			// the wall clock, which a loaded machine stretches: no request
			// may wait past the bound (plus the margin for the answer).
			for i, b := range ed.budgets {
				if b < 0 || b > 300*time.Millisecond+answerMargin {
					t.Errorf("request %d could wait %v, past the bound of 300ms+%v", i+1, b, answerMargin)
				}
			}
			if tc.stallBefore && (len(ed.asked) != 1 || ed.budgets[0] > 300*time.Millisecond) {
				t.Errorf("a client that stalled before the edit spent the bound, yet was asked %d times, the first with %v", len(ed.asked), ed.budgets[0])
			}
			text := res.Text()
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("result lacks %q:\n%s", w, text)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(text, n) {
					t.Errorf("result has %q:\n%s", n, text)
				}
			}
			if !strings.HasPrefix(text, "The file src/app.ts has been updated.") {
				t.Errorf("the tool's own text was lost: %q", text)
			}
			if tc.stallBefore {
				return // the bound was spent before the edit: nothing is asked after it
			}
			last := ed.asked[len(ed.asked)-1]
			if last.WaitMs != 300 || len(last.URIs) != 1 || last.URIs[0] != uri {
				t.Errorf("the request after the edit was %+v, want the edited file and waitMs 300", last)
			}
		})
	}
}

// partialEditor is an editor client that declared only some of the
// language capabilities.
type partialEditor struct {
	fakeEditor
	diagnostics, features bool
}

func (p *partialEditor) CanReportDiagnostics() bool      { return p.diagnostics }
func (p *partialEditor) CanAnswerLanguageFeatures() bool { return p.features }

// TestToolsUnservableWithoutTheCapability: whether a host can serve each
// language tool is decided by its client's capability alone, and a call
// where it cannot answers the same reason the listing left it out for:
// no editor at all names --attach, an editor client without the
// capability names the capability.
func TestToolsUnservableWithoutTheCapability(t *testing.T) {
	ws := workspace.New(t.TempDir())
	diagnostics, lsp := NewGetDiagnostics(ws), NewLSP(ws)
	inputs := map[tools.Tool]string{diagnostics: `{}`, lsp: `{"operation":"hover","filePath":"a.ts","line":1,"character":1}`}
	cases := []struct {
		name string
		host tools.Host
		tool tools.Tool
		want string // "" when the host serves the tool
	}{
		{"no editor, getDiagnostics", tools.NoHost{}, diagnostics, "runs with no editor"},
		{"no editor, LSP", tools.NoHost{}, lsp, "--attach"},
		{"diagnostics only, getDiagnostics", &partialEditor{diagnostics: true}, diagnostics, ""},
		{"diagnostics only, LSP", &partialEditor{diagnostics: true}, lsp, "did not declare experimental.toolhost.languageFeatures"},
		{"features only, getDiagnostics", &partialEditor{features: true}, diagnostics, "did not declare experimental.toolhost.diagnostics"},
		{"features only, LSP", &partialEditor{features: true}, lsp, ""},
		{"neither, LSP", &partialEditor{}, lsp, "Use Grep and Read"},
		{"both, getDiagnostics", &fakeEditor{}, diagnostics, ""},
		{"both, LSP", &fakeEditor{}, lsp, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			why := tools.Unservable(tc.tool, tc.host)
			if tc.want == "" {
				if why != "" {
					t.Fatalf("unservable: %q, want servable", why)
				}
				return
			}
			if !strings.Contains(why, tc.want) {
				t.Fatalf("unservable: %q, want a reason saying %q", why, tc.want)
			}
			res, err := tc.tool.Execute(context.Background(), &tools.Call{Input: json.RawMessage(inputs[tc.tool]), Host: tc.host})
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsError || !strings.Contains(res.Text(), why) {
				t.Errorf("a call answered %q, want the error %q", res.Text(), why)
			}
		})
	}
}

func TestLSPFormatsTheEditorsAnswer(t *testing.T) {
	root := t.TempDir()
	ws := workspace.New(root)
	if err := os.WriteFile(filepath.Join(root, "util.ts"), []byte("// util\nexport function add(a: number, b: number) {\n  return a + b;\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "app.ts"), []byte("import { add } from \"./util\";\nconsole.log(add(1, 2));\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	util := workspace.PathToURI(filepath.Join(root, "util.ts"))
	app := workspace.PathToURI(filepath.Join(root, "app.ts"))
	loc := func(uri string, line, char int) string {
		return `{"uri":"` + uri + `","range":{"start":{"line":` + itoa(line) + `,"character":` + itoa(char) + `},"end":{"line":0,"character":0}}}`
	}
	call := func(uri, name string, line int) string {
		return `{"name":"` + name + `","kind":12,"detail":"main.go","uri":"` + uri + `","range":{"start":{"line":` + itoa(line) + `,"character":0},"end":{"line":` + itoa(line) + `,"character":5}},"selectionRange":{"start":{"line":` + itoa(line) + `,"character":9},"end":{"line":` + itoa(line) + `,"character":12}}}`
	}
	fromRanges := `"fromRanges":[{"start":{"line":1,"character":12},"end":{"line":1,"character":15}}]`
	// Each case states Claude Code's own shape for the operation (its LSP
	// tool's formatter, 2.1.330): the header lines, "path:line:character",
	// the grouping by file, and the structured counts. toolhost adds the
	// line of code each location points at.
	cases := []struct {
		name, op, answer string
		want             []string
		count, files     int
	}{
		{"one definition", "goToDefinition", "[" + loc(util, 1, 16) + "]", []string{"Defined in util.ts:2:17\n  export function add(a: number, b: number) {"}, 1, 1},
		{"a location link", "goToDefinition", `[{"targetUri":"` + util + `","targetSelectionRange":{"start":{"line":1,"character":16},"end":{"line":1,"character":19}},"targetRange":{"start":{"line":1,"character":0},"end":{"line":3,"character":1}}}]`, []string{"Defined in util.ts:2:17"}, 1, 1},
		{"two definitions", "goToDefinition", "[" + loc(util, 1, 16) + "," + loc(app, 0, 9) + "]",
			[]string{"Found 2 definitions:\n  util.ts:2:17: export function add(a: number, b: number) {\n  app.ts:1:10: import { add } from \"./util\";"}, 2, 2},
		{"no definition", "goToDefinition", "[]", []string{"No definition found"}, 0, 0},
		{"an empty Lua table", "goToDefinition", "{}", []string{"No definition found"}, 0, 0},
		{"one implementation", "goToImplementation", "[" + loc(util, 1, 16) + "]", []string{"Defined in util.ts:2:17"}, 1, 1},
		{"one reference", "findReferences", "[" + loc(util, 1, 16) + "]", []string{"Found 1 reference:\n  util.ts:2:17: export function add"}, 1, 1},
		{"references in one file", "findReferences", "[" + loc(app, 0, 9) + "," + loc(app, 1, 12) + "]",
			[]string{"Found 2 references across 1 files:\n\napp.ts:\n  Line 1:10: import"}, 2, 1},
		{"references in two files", "findReferences", "[" + loc(util, 1, 16) + "," + loc(app, 0, 9) + "," + loc(app, 1, 12) + "]",
			[]string{"Found 3 references across 2 files:", "util.ts:\n  Line 2:17: export function add", "app.ts:\n  Line 1:10: import { add } from \"./util\";\n  Line 2:13: console.log(add(1, 2));"}, 3, 2},
		{"hover", "hover", `{"contents":{"kind":"markdown","value":"function add(a: number, b: number): number"},"range":{"start":{"line":1,"character":16},"end":{"line":1,"character":19}}}`,
			[]string{"Hover info at 2:17:\n\nfunction add(a: number, b: number): number"}, 1, 1},
		{"no hover", "hover", "null", []string{"No hover information available"}, 0, 0},
		{"document symbols", "documentSymbol", `[{"name":"add","kind":12,"range":{"start":{"line":1,"character":0},"end":{"line":3,"character":1}},"selectionRange":{"start":{"line":1,"character":16},"end":{"line":1,"character":19}},"children":[{"name":"a","kind":13,"range":{"start":{"line":1,"character":20},"end":{"line":1,"character":29}}}]}]`,
			[]string{"Document symbols:\nadd (Function) - Line 2\n  a (Variable) - Line 2"}, 2, 1},
		{"workspace symbols", "workspaceSymbol", `[{"name":"add","kind":12,"location":` + loc(util, 1, 16) + `}]`, []string{"Found 1 symbol in workspace:\n\nutil.ts:\n  add (Function) - Line 2"}, 1, 1},
		{"a call hierarchy item", "prepareCallHierarchy", "[" + call(app, "main", 1) + "]", []string{"Call hierarchy item: main (Function) - app.ts:2 [main.go]"}, 1, 1},
		{"incoming calls", "incomingCalls", `[{"from":` + call(app, "main", 1) + `,` + fromRanges + `}]`,
			[]string{"Found 1 incoming call:\n\napp.ts:\n  main (Function) - Line 2 [calls at: 2:13]"}, 1, 1},
		{"outgoing calls", "outgoingCalls", `[{"to":` + call(util, "add", 1) + `,` + fromRanges + `}]`,
			[]string{"Found 1 outgoing call:\n\nutil.ts:\n  add (Function) - Line 2 [called from: 2:13]"}, 1, 1},
		{"no outgoing calls", "outgoingCalls", "[]", []string{"No outgoing calls found"}, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ed := &fakeEditor{feature: json.RawMessage(tc.answer)}
			res, err := NewLSP(ws).Execute(context.Background(), &tools.Call{Host: ed,
				Input: json.RawMessage(`{"operation":"` + tc.op + `","filePath":"app.ts","line":2,"character":13,"query":"add"}`)})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Text(), w) {
					t.Errorf("result lacks %q:\n%s", w, res.Text())
				}
			}
			out, ok := res.Structured.(LSPOutput)
			if !ok {
				t.Fatalf("structured result is %T, want LSPOutput", res.Structured)
			}
			if out.Operation != tc.op || out.FilePath != "app.ts" || out.Result != res.Text() || out.ResultCount != tc.count || out.FileCount != tc.files {
				t.Errorf("structured result %+v, want operation %s, filePath app.ts, the text, %d results in %d files", out, tc.op, tc.count, tc.files)
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
