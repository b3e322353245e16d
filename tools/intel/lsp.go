package intel

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

// lspTimeout bounds one LSP call; the client gets a little less, so its
// own error (no server attached, no answer) reaches the model first.
const (
	lspTimeout       = 15 * time.Second
	lspClientTimeout = 12 * time.Second
)

// Caps on what one LSP result shows.
const (
	maxLocations   = 100
	maxResultChars = 20000
	// maxContextFileBytes: larger files are not read for lines of context.
	maxContextFileBytes = 4 << 20
)

var lspOperations = []string{
	tools.OpGoToDefinition, tools.OpFindReferences, tools.OpHover, tools.OpDocumentSymbol, tools.OpWorkspaceSymbol,
	tools.OpGoToImplementation, tools.OpPrepareCallHierarchy, tools.OpIncomingCalls, tools.OpOutgoingCalls,
}

// lspParams is Claude Code's LSP tool input.
type lspParams struct {
	Operation string `json:"operation" jsonschema:"The LSP operation to perform" schema:"enum=goToDefinition|findReferences|hover|documentSymbol|workspaceSymbol|goToImplementation|prepareCallHierarchy|incomingCalls|outgoingCalls"`
	FilePath  string `json:"filePath" jsonschema:"The absolute or relative path to the file"`
	Line      int    `json:"line" jsonschema:"The line number (1-based, as shown in editors)" schema:"exclusiveMinimum=0"`
	Character int    `json:"character" jsonschema:"The character offset (1-based, as shown in editors)" schema:"exclusiveMinimum=0"`
	Query     string `json:"query,omitempty" jsonschema:"The symbol name or part of it to search for (workspaceSymbol only); language servers find little for an empty query, so give one."`
}

var lspSchema = tools.SchemaOf[lspParams](nil)

// LSP is Claude Code's LSP tool, answered by the editor's language servers.
type LSP struct {
	ws *workspace.Workspace
}

// NewLSP returns the LSP tool.
func NewLSP(ws *workspace.Workspace) *LSP { return &LSP{ws: ws} }

func (*LSP) Name() string { return "LSP" }
func (*LSP) Description() string {
	return `Ask the editor's language servers about code: where a symbol is defined (goToDefinition, goToImplementation), where it is used (findReferences), its type and documentation (hover), the symbols of a file (documentSymbol) or of the workspace (workspaceSymbol, with query), and call hierarchies (prepareCallHierarchy, incomingCalls, outgoingCalls).

filePath names the file; line and character are 1-based, as editors show them, and point at the symbol. Results name files relative to the workspace with 1-based line:character positions.`
}
func (*LSP) InputSchema() json.RawMessage { return lspSchema.JSON() }
func (*LSP) SideEffect() tools.SideEffect { return tools.SideEffectNone }

// Access implements tools.AccessDescriber: the file asked about.
func (*LSP) Access(input json.RawMessage) tools.Access {
	var p lspParams
	if json.Unmarshal(input, &p) != nil || p.FilePath == "" {
		return tools.Access{}
	}
	return tools.Access{ReadPaths: []string{p.FilePath}}
}

// Docs implements tools.Documented.
func (*LSP) Docs() tools.Docs {
	return tools.Docs{
		Short: "Claude Code's LSP tool: definitions, references, hover, symbols and call hierarchies from the editor's language servers.",
		Long: "Same name and input as Claude Code's `LSP` tool, so a model trained on it calls it unchanged. Claude Code starts " +
			"language servers of its own for it; here the editor answers with the servers it already runs for the " +
			"user (VS Code through its `vscode.execute*Provider` commands, Neovim through the LSP clients attached to " +
			"the file's buffer, loading the file when it is not open). Results name files relative to the workspace, " +
			"with 1-based positions and the lines of code they point at, capped at 100 locations. It needs an editor " +
			"client that declares experimental.toolhost.languageFeatures; elsewhere it is not offered, and a call answers an error saying why and what to use instead.",
		Examples: []tools.Example{
			{Title: "Where a function is defined", Input: json.RawMessage(`{"operation":"goToDefinition","filePath":"src/app.ts","line":12,"character":9}`)},
			{Title: "Its uses", Input: json.RawMessage(`{"operation":"findReferences","filePath":"src/util.ts","line":3,"character":17}`)},
			{Title: "Symbols named like Config", Input: json.RawMessage(`{"operation":"workspaceSymbol","filePath":"src/app.ts","line":1,"character":1,"query":"Config"}`)},
		},
	}
}

// Execute asks the client and formats its answer.
func (t *LSP) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var p lspParams
	if err := json.Unmarshal(call.Input, &p); err != nil {
		return tools.ErrorResult("the input is not a valid LSP input (%v); send {\"operation\": \"goToDefinition\", \"filePath\": \"src/app.ts\", \"line\": 3, \"character\": 10}.", err), nil
	}
	if why := t.Unservable(call.Host); why != "" {
		return tools.ErrorResult("%s", why), nil
	}
	li, _ := languageIntel(call.Host)
	path, err := t.ws.Resolve(p.FilePath)
	if err != nil {
		return tools.ErrorResult("%v", err), nil
	}
	if info, err := os.Stat(path); err != nil || info.IsDir() {
		return tools.ErrorResult("%s is not a file; give the path of the source file the symbol is in.", p.FilePath), nil
	}
	ctx, cancel := context.WithTimeout(ctx, lspTimeout)
	defer cancel()
	raw, err := li.LanguageFeature(ctx, tools.LanguageFeatureRequest{
		Operation: p.Operation,
		URI:       workspace.PathToURI(path),
		Position:  tools.LSPPosition{Line: p.Line - 1, Character: p.Character - 1},
		Query:     p.Query,
		TimeoutMs: int(lspClientTimeout / time.Millisecond),
	})
	if err != nil {
		return tools.ErrorResult("the editor's language servers could not answer %s for %s: %v. Check that the editor has a language server for this kind of file, or use Grep and Read.", p.Operation, p.FilePath, err), nil
	}
	f, err := formatFeature(newLines(t.ws), p.Operation, raw)
	if err != nil {
		return tools.ErrorResult("the editor answered %s in a shape toolhost does not read (%v).", p.Operation, err), nil
	}
	text := f.text
	if len(text) > maxResultChars {
		text = text[:maxResultChars] + "\n…[truncated]"
	}
	res := tools.TextResult(text)
	res.Structured = LSPOutput{Operation: p.Operation, Result: text, FilePath: p.FilePath, ResultCount: f.count, FileCount: f.files}
	return res, nil
}

// LSPOutput is the structured result, Claude Code's LSP output: the text
// the model reads and how many results in how many files it holds, which
// SDK and hook consumers read.
type LSPOutput struct {
	Operation   string `json:"operation"`
	Result      string `json:"result"`
	FilePath    string `json:"filePath"`
	ResultCount int    `json:"resultCount"`
	FileCount   int    `json:"fileCount"`
}

// formatted is an answer as the model reads it, with what it counts.
type formatted struct {
	text         string
	count, files int
}

// lspLocation is a Location or a LocationLink.
type lspLocation struct {
	URI                  string          `json:"uri"`
	Range                tools.LSPRange  `json:"range"`
	TargetURI            string          `json:"targetUri"`
	TargetSelectionRange *tools.LSPRange `json:"targetSelectionRange"`
	TargetRange          *tools.LSPRange `json:"targetRange"`
}

func (l lspLocation) normal() (string, tools.LSPRange) {
	if l.TargetURI != "" {
		if l.TargetSelectionRange != nil {
			return l.TargetURI, *l.TargetSelectionRange
		}
		if l.TargetRange != nil {
			return l.TargetURI, *l.TargetRange
		}
		return l.TargetURI, tools.LSPRange{}
	}
	return l.URI, l.Range
}

type lspSymbol struct {
	Name           string          `json:"name"`
	Detail         string          `json:"detail"`
	Kind           int             `json:"kind"`
	ContainerName  string          `json:"containerName"`
	Range          *tools.LSPRange `json:"range"`
	Location       *lspLocation    `json:"location"`
	Children       []lspSymbol     `json:"children"`
	URI            string          `json:"uri"`
	SelectionRange *tools.LSPRange `json:"selectionRange"`
}

type lspCall struct {
	From       *lspSymbol       `json:"from"`
	To         *lspSymbol       `json:"to"`
	FromRanges []tools.LSPRange `json:"fromRanges"`
}

var symbolKinds = []string{"", "File", "Module", "Namespace", "Package", "Class", "Method", "Property", "Field", "Constructor",
	"Enum", "Interface", "Function", "Variable", "Constant", "String", "Number", "Boolean", "Array", "Object", "Key", "Null",
	"EnumMember", "Struct", "Event", "Operator", "TypeParameter"}

func kindName(k int) string {
	if k > 0 && k < len(symbolKinds) {
		return symbolKinds[k]
	}
	return "Unknown"
}

// decodeList decodes a JSON array; null and {} (how some Lua encoders
// write an empty table) are empty, a single object a list of one.
func decodeList[T any](raw json.RawMessage) ([]T, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" || string(raw) == "{}" {
		return nil, nil
	}
	if raw[0] == '{' {
		var one T
		err := json.Unmarshal(raw, &one)
		return []T{one}, err
	}
	var list []T
	err := json.Unmarshal(raw, &list)
	return list, err
}

// lines reads lines of workspace files for context, each file once.
type lines struct {
	ws    *workspace.Workspace
	files map[string][]string
}

func newLines(ws *workspace.Workspace) *lines { return &lines{ws: ws, files: map[string][]string{}} }

// at is line n (0-based) of uri's file, trimmed; "" when it cannot be read.
func (l *lines) at(uri string, n int) string {
	text, ok := l.files[uri]
	if !ok {
		if path, inside := insideWorkspace(l.ws, uri); inside {
			if info, err := os.Stat(path); err == nil && info.Size() <= maxContextFileBytes {
				if b, err := os.ReadFile(path); err == nil {
					text = strings.Split(string(b), "\n")
				}
			}
		}
		l.files[uri] = text
	}
	if n < 0 || n >= len(text) {
		return ""
	}
	s := strings.TrimSpace(strings.TrimSuffix(text[n], "\r"))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// position is "path:line:character", 1-based.
func (l *lines) position(uri string, r tools.LSPRange) string {
	return fmt.Sprintf("%s:%d:%d", shownPath(l.ws, uri), r.Start.Line+1, r.Start.Character+1)
}

// locations are an answer's locations, in order, with the number of
// files they are in.
func locations(raw json.RawMessage) ([]location, int, error) {
	locs, err := decodeList[lspLocation](raw)
	if err != nil {
		return nil, 0, err
	}
	var all []location
	files := map[string]bool{}
	for _, x := range locs {
		if uri, r := x.normal(); uri != "" {
			all = append(all, location{uri, r})
			files[uri] = true
		}
	}
	return all, len(files), nil
}

type location struct {
	uri string
	r   tools.LSPRange
}

// withSource is text followed by ": " and the line of code loc points at,
// when it can be read.
func (l *lines) withSource(text string, loc location) string {
	if src := l.at(loc.uri, loc.r.Start.Line); src != "" {
		return text + ": " + src
	}
	return text
}

// definitions formats goToDefinition's and goToImplementation's answers
// as Claude Code does for both: "Defined in path:l:c" for one, a list of
// positions for several.
func (l *lines) definitions(raw json.RawMessage) (formatted, error) {
	all, files, err := locations(raw)
	if err != nil || len(all) == 0 {
		return formatted{text: "No definition found. The position may not be on a symbol, or the definition is in a library the language server does not index."}, err
	}
	if len(all) == 1 {
		s := "Defined in " + l.position(all[0].uri, all[0].r)
		if src := l.at(all[0].uri, all[0].r.Start.Line); src != "" {
			s += "\n  " + src
		}
		return formatted{s, 1, 1}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Found %d definitions:", len(all))
	for i, x := range all {
		if i == maxLocations {
			fmt.Fprintf(&b, "\n  … %d more not shown", len(all)-i)
			break
		}
		b.WriteString("\n  " + l.withSource(l.position(x.uri, x.r), x))
	}
	return formatted{b.String(), len(all), files}, nil
}

// references formats findReferences' answer as Claude Code does: one as
// its position, several grouped by file with "Line l:c".
func (l *lines) references(raw json.RawMessage) (formatted, error) {
	all, files, err := locations(raw)
	if err != nil || len(all) == 0 {
		return formatted{text: "No references found. The position may not be on a symbol, or the language server has not indexed the project yet."}, err
	}
	if len(all) == 1 {
		return formatted{"Found 1 reference:\n  " + l.withSource(l.position(all[0].uri, all[0].r), all[0]), 1, 1}, nil
	}
	var order []string
	byFile := map[string][]location{}
	for _, x := range all {
		if _, ok := byFile[x.uri]; !ok {
			order = append(order, x.uri)
		}
		byFile[x.uri] = append(byFile[x.uri], x)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Found %d references across %d files:", len(all), len(order))
	shown := 0
	for _, uri := range order {
		fmt.Fprintf(&b, "\n\n%s:", shownPath(l.ws, uri))
		for _, x := range byFile[uri] {
			if shown == maxLocations {
				fmt.Fprintf(&b, "\n  … %d more not shown", len(all)-shown)
				return formatted{b.String(), len(all), files}, nil
			}
			shown++
			b.WriteString("\n  " + l.withSource(fmt.Sprintf("Line %d:%d", x.r.Start.Line+1, x.r.Start.Character+1), x))
		}
	}
	return formatted{b.String(), len(all), files}, nil
}

// hoverText is the text of a Hover's contents (MarkupContent, MarkedString
// or a list of them).
func hoverText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var one struct {
		Kind     string `json:"kind"`
		Language string `json:"language"`
		Value    string `json:"value"`
	}
	if json.Unmarshal(raw, &one) == nil && (one.Value != "" || one.Kind != "") {
		if one.Language != "" {
			return "```" + one.Language + "\n" + one.Value + "\n```"
		}
		return one.Value
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		parts := make([]string, 0, len(list))
		for _, x := range list {
			parts = append(parts, hoverText(x))
		}
		return strings.Join(parts, "\n\n")
	}
	return ""
}

// symbolTree writes DocumentSymbols indented by depth; it returns how
// many it wrote, children included.
func (l *lines) symbolTree(b *strings.Builder, syms []lspSymbol, depth int) int {
	n := 0
	for _, s := range syms {
		fmt.Fprintf(b, "\n%s%s (%s)", strings.Repeat("  ", depth), s.Name, kindName(s.Kind))
		if s.Detail != "" {
			b.WriteString(" " + s.Detail)
		}
		if s.Range != nil {
			fmt.Fprintf(b, " - Line %d", s.Range.Start.Line+1)
		}
		n += 1 + l.symbolTree(b, s.Children, depth+1)
	}
	return n
}

// symbolList lists SymbolInformation grouped by file, under Claude Code's
// header for them (which it uses for a file's flat symbol list too).
func (l *lines) symbolList(syms []lspSymbol) formatted {
	var order []string
	byFile := map[string][]lspSymbol{}
	n := 0
	for _, s := range syms {
		if s.Location == nil {
			continue
		}
		uri, _ := s.Location.normal()
		if _, ok := byFile[uri]; !ok {
			order = append(order, uri)
		}
		byFile[uri] = append(byFile[uri], s)
		n++
	}
	if n == 0 {
		return formatted{text: noWorkspaceSymbols}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Found %d %s in workspace:", n, plural(n, "symbol"))
	shown := 0
	for _, uri := range order {
		fmt.Fprintf(&b, "\n\n%s:", shownPath(l.ws, uri))
		for _, s := range byFile[uri] {
			if shown == maxLocations {
				fmt.Fprintf(&b, "\n  … %d more not shown", n-shown)
				return formatted{b.String(), n, len(order)}
			}
			shown++
			_, r := s.Location.normal()
			fmt.Fprintf(&b, "\n  %s (%s) - Line %d", s.Name, kindName(s.Kind), r.Start.Line+1)
			if s.ContainerName != "" {
				fmt.Fprintf(&b, " in %s", s.ContainerName)
			}
		}
	}
	return formatted{b.String(), n, len(order)}
}

const noWorkspaceSymbols = "No symbols found in the workspace. Give a query that is part of a symbol's name; the language server may also still be indexing."

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// callItem is a call hierarchy item as Claude Code shows it: name, kind,
// path:line of its whole range, and its detail.
func (l *lines) callItem(s lspSymbol) string {
	line := 0
	if s.Range != nil {
		line = s.Range.Start.Line + 1
	}
	text := fmt.Sprintf("%s (%s) - %s:%d", s.Name, kindName(s.Kind), shownPath(l.ws, s.URI), line)
	if s.Detail != "" {
		text += " [" + s.Detail + "]"
	}
	return text
}

// calls lists incoming or outgoing calls grouped by the file of the other
// end, with the positions of the calls as Claude Code labels them ("calls
// at" for incoming, "called from" for outgoing).
func (l *lines) calls(raw json.RawMessage, incoming bool) (formatted, error) {
	list, err := decodeList[lspCall](raw)
	if err != nil {
		return formatted{}, err
	}
	dir, label, none := "outgoing", "called from", "No outgoing calls found: this function calls nothing the language server knows."
	if incoming {
		dir, label, none = "incoming", "calls at", "No incoming calls found: nothing calls this function, as far as the language server knows."
	}
	var order []string
	byFile := map[string][]lspCall{}
	n := 0
	for _, c := range list {
		end := c.To
		if incoming {
			end = c.From
		}
		if end == nil {
			continue
		}
		if _, ok := byFile[end.URI]; !ok {
			order = append(order, end.URI)
		}
		byFile[end.URI] = append(byFile[end.URI], c)
		n++
	}
	if n == 0 {
		return formatted{text: none}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Found %d %s %s:", n, dir, plural(n, "call"))
	shown := 0
	for _, uri := range order {
		fmt.Fprintf(&b, "\n\n%s:", shownPath(l.ws, uri))
		for _, c := range byFile[uri] {
			if shown == maxLocations {
				fmt.Fprintf(&b, "\n  … %d more not shown", n-shown)
				return formatted{b.String(), n, len(order)}, nil
			}
			shown++
			end := c.To
			if incoming {
				end = c.From
			}
			line := 0
			if end.Range != nil {
				line = end.Range.Start.Line + 1
			}
			fmt.Fprintf(&b, "\n  %s (%s) - Line %d", end.Name, kindName(end.Kind), line)
			if len(c.FromRanges) > 0 {
				at := make([]string, 0, len(c.FromRanges))
				for _, r := range c.FromRanges {
					at = append(at, fmt.Sprintf("%d:%d", r.Start.Line+1, r.Start.Character+1))
				}
				fmt.Fprintf(&b, " [%s: %s]", label, strings.Join(at, ", "))
			}
		}
	}
	return formatted{b.String(), n, len(order)}, nil
}

// formatFeature turns a client's answer into the model's text, shaped as
// Claude Code's LSP tool shapes each operation's.
func formatFeature(l *lines, op string, raw json.RawMessage) (formatted, error) {
	switch op {
	case tools.OpGoToDefinition, tools.OpGoToImplementation:
		return l.definitions(raw)
	case tools.OpFindReferences:
		return l.references(raw)
	case tools.OpHover:
		var h *struct {
			Contents json.RawMessage `json:"contents"`
			Range    *tools.LSPRange `json:"range"`
		}
		if len(bytes.TrimSpace(raw)) > 0 {
			if err := json.Unmarshal(raw, &h); err != nil {
				return formatted{}, err
			}
		}
		text := ""
		if h != nil {
			text = strings.TrimSpace(hoverText(h.Contents))
		}
		if text == "" {
			return formatted{text: "No hover information available. The position may not be on a symbol, or the language server has not indexed the file yet."}, nil
		}
		if h.Range != nil {
			text = fmt.Sprintf("Hover info at %d:%d:\n\n%s", h.Range.Start.Line+1, h.Range.Start.Character+1, text)
		}
		return formatted{text, 1, 1}, nil
	case tools.OpDocumentSymbol:
		syms, err := decodeList[lspSymbol](raw)
		if err != nil {
			return formatted{}, err
		}
		if len(syms) == 0 {
			return formatted{text: "No symbols found in the file. It may be empty, or no language server handles it."}, nil
		}
		if syms[0].Location != nil {
			return l.symbolList(syms), nil
		}
		var b strings.Builder
		b.WriteString("Document symbols:")
		n := l.symbolTree(&b, syms, 0)
		return formatted{b.String(), n, 1}, nil
	case tools.OpWorkspaceSymbol:
		syms, err := decodeList[lspSymbol](raw)
		if err != nil {
			return formatted{}, err
		}
		return l.symbolList(syms), nil
	case tools.OpPrepareCallHierarchy:
		items, err := decodeList[lspSymbol](raw)
		if err != nil {
			return formatted{}, err
		}
		files := map[string]bool{}
		for _, it := range items {
			files[it.URI] = true
		}
		switch len(items) {
		case 0:
			return formatted{text: "No call hierarchy item found at this position: put it on the name of a function or method."}, nil
		case 1:
			return formatted{"Call hierarchy item: " + l.callItem(items[0]), 1, 1}, nil
		}
		var b strings.Builder
		fmt.Fprintf(&b, "Found %d call hierarchy items:", len(items))
		for _, it := range items {
			b.WriteString("\n  " + l.callItem(it))
		}
		return formatted{b.String(), len(items), len(files)}, nil
	case tools.OpIncomingCalls:
		return l.calls(raw, true)
	case tools.OpOutgoingCalls:
		return l.calls(raw, false)
	}
	return formatted{}, fmt.Errorf("unknown operation %q; use one of %s", op, strings.Join(lspOperations, ", "))
}
