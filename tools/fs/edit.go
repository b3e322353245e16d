package fs

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/toolhost/toolhost/internal/hugemem"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"unsafe"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

//go:embed edit.md
var editDescription string

type editParams struct {
	FilePath   string `json:"file_path" jsonschema:"Absolute path of the file to change."`
	OldString  string `json:"old_string" jsonschema:"The exact text to replace, as it appears in the file."`
	NewString  string `json:"new_string" jsonschema:"The text to put in its place; must differ from old_string."`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"Replace every occurrence of old_string instead of requiring exactly one." schema:"default=false"`
}

var editSchema = tools.SchemaOf[editParams](nil)

// Edit replaces exact text in a file.
type Edit struct {
	ws       *workspace.Workspace
	settings func() *settings.Settings
}

// NewEdit returns the Edit tool over ws; settings (may be nil) gives the live
// edit.fuzzy setting.
func NewEdit(ws *workspace.Workspace, settings func() *settings.Settings) *Edit {
	return &Edit{ws: ws, settings: settings}
}

func (*Edit) Name() string                 { return "Edit" }
func (*Edit) Description() string          { return editDescription }
func (*Edit) InputSchema() json.RawMessage { return editSchema.JSON() }
func (*Edit) SideEffect() tools.SideEffect { return tools.SideEffectMutating }

// Docs implements tools.Documented.
func (*Edit) Docs() tools.Docs {
	return tools.Docs{
		Short: "Replace exact text in a file that was Read; the result carries a unified diff.",
		Long: "old_string must occur exactly once unless replace_all is set; no match and several matches " +
			"are errors that say which (with line numbers). The file must have been Read in this session; if " +
			"it changed since (in the editor or on disk), the edit applies to the current content only when " +
			"old_string occurs there exactly once, and the result says so. Line endings (an LF old_string matches in a CRLF " +
			"file, and the file stays CRLF), the file's encoding (UTF-8, UTF-8 with a BOM, UTF-16LE/BE with a BOM, " +
			"as in Claude Code; the result says when one other than plain UTF-8 was kept) and the file mode are kept; a file " +
			"in an encoding that cannot be kept exactly (Latin-1, invalid UTF-8) is refused rather than rewritten, with how to " +
			"convert it; a UTF-16 file the editor does not have open is written by the server in its encoding, one open in the editor is refused with what to do. Straight quotes in old_string match curly ones " +
			"when nothing matches exactly, and new_string then takes the file's quote style. A binary file (one Read refuses) is " +
			"refused at once, saying so, even before it was read. Notebooks are " +
			"refused in favour of NotebookEdit. The edit.fuzzy setting (off by default) " +
			"lets whole lines match despite trailing-whitespace or indentation differences, re-indenting " +
			"new_string to the file. An empty old_string creates a file that does not exist. The result's " +
			"structuredPatch keeps at most 1 MiB of lines (marked structuredPatchTruncated when cut), and " +
			"originalFile is left out past 1 MiB (originalFileOmitted).",
		Examples: []tools.Example{
			{Title: "Change one call", Input: json.RawMessage(`{"file_path":"/src/app/main.go","old_string":"log.Println(\"starting\")","new_string":"log.Printf(\"starting %s\", version)"}`)},
			{Title: "Rename a variable everywhere in a file", Input: json.RawMessage(`{"file_path":"/src/app/main.go","old_string":"cfg","new_string":"config","replace_all":true}`)},
		},
	}
}

// Access implements tools.AccessDescriber.
func (e *Edit) Access(input json.RawMessage) tools.Access {
	c, res := e.decode(input)
	if res != nil {
		return tools.Access{}
	}
	return c.Access()
}

// editCall is one Edit call: its input decoded, and once prepared the
// match worked out on the file's content (plan), which the preview and
// Execute share.
type editCall struct {
	change
	e    *Edit
	p    editParams
	plan *editPlan
}

// Decode implements tools.Planner.
func (e *Edit) Decode(input json.RawMessage) (tools.Plan, *tools.Result) {
	c, res := e.decode(input)
	if res != nil {
		return nil, res
	}
	return c, nil
}

func (e *Edit) decode(input json.RawMessage) (*editCall, *tools.Result) {
	var p editParams
	if err := json.Unmarshal(input, &p); err != nil {
		return nil, tools.ErrorResult("the input is not a valid Edit input (%v); send {\"file_path\", \"old_string\", \"new_string\"}.", err)
	}
	countDecode()
	return &editCall{change: newChange(e.ws, "file_path", p.FilePath), e: e, p: p}, nil
}

// refusal is the error of an input no file content can make work.
func (c *editCall) refusal() *tools.Result {
	switch {
	case c.bad != nil:
		return c.bad
	case isNotebook(c.abs):
		return notebookRefusal(c.abs)
	case c.p.OldString == c.p.NewString:
		return tools.ErrorResult("old_string and new_string are the same, so the edit would change nothing. Give the new text in new_string.")
	}
	return nil
}

// prepare checks the edit against the file and works out the match; a
// non-nil result is the error the call ends with. The edited content is
// built later, once, by the preview or by Execute: a large file is not held
// three times over before anybody asks. checkFresh adds the checks that
// the file was read and is unchanged since (left out only for the preview
// of input the user has not approved yet).
func (c *editCall) prepare(ctx context.Context, checkFresh bool) *tools.Result {
	if res := c.refusal(); res != nil {
		return res
	}
	abs, p := c.abs, c.p
	// A file never read, or too large to Read, is refused before it is
	// read: the read of a file of gigabytes would cost its size in memory.
	if checkFresh {
		if err := c.ws.CheckRead(abs); err != nil {
			if c.e.binary(ctx, abs) {
				// Read refused it: asking for a Read would send the model
				// round in a loop. The sniff reads a few KiB, not the file.
				return binaryEditRefusal(abs)
			}
			return tools.ErrorResult("%v", err)
		}
	}
	old, err := c.load(ctx, maxReadBytes)
	var tooLarge *workspace.TooLargeError
	switch {
	case errors.As(err, &tooLarge):
		return tooLargeToEdit(abs)
	case err != nil:
		return tools.ErrorResult("cannot read %s: %v.", abs, err)
	case old == nil && p.OldString != "":
		return notFound(abs)
	}
	if old != nil && (binaryExtension(strings.ToLower(filepath.Ext(abs))) || looksBinary(old)) {
		// Before the read check: Read refused this file, so asking for a
		// Read first would send the model round in a loop.
		return binaryEditRefusal(abs)
	}
	fuzzy := currentSettings(c.e.settings).Edit.Fuzzy
	// stale is set when the file changed since the Read: the edit is then
	// checked as Execute makes it (workspace.Modification.Changed), exactly
	// once and never fuzzily, and otherwise fails as stale.
	var stale error
	if checkFresh && old != nil {
		if err := c.checkFresh(); err != nil {
			if !c.stale {
				return tools.ErrorResult("%v", err)
			}
			stale, fuzzy = err, false
		}
	}
	plan, fail := planEdit(abs, old, p, fuzzy, false)
	if stale != nil && (fail != nil || plan.count != 1) {
		return tools.ErrorResult("%v", stale)
	}
	if fail != nil {
		return tools.ErrorResult("%v", fail)
	}
	c.setBase(old)
	c.plan = plan
	return nil
}

// Prepare implements tools.Plan: an edit that cannot be made (stale file,
// no match) fails before the user is asked.
func (c *editCall) Prepare(ctx context.Context, _ tools.Host) *tools.Result {
	return c.precheck(c.prepare(ctx, true))
}

// Preview implements tools.Plan: the diff of the prepared edit.
func (c *editCall) Preview(context.Context) *tools.Preview {
	if !c.prepared || (c.base == nil && c.baseExists) {
		return nil // not prepared, or the change is being made
	}
	next := c.plan.bytesOn(c.base)
	return tools.FilePreview(c.abs, unifiedDiff(c.ws, c.abs, c.base, next), next)
}

// Precheck implements tools.Prechecker for callers that hold raw input
// (the pipeline prepares the Plan instead).
func (e *Edit) Precheck(ctx context.Context, host tools.Host, input json.RawMessage) *tools.Result {
	c, res := e.decode(input)
	if res != nil {
		return res
	}
	return c.Prepare(ctx, host)
}

// Preview implements tools.Previewer: the diff the edit would make, or nil
// when it would fail.
func (e *Edit) Preview(ctx context.Context, input json.RawMessage) *tools.Preview {
	c, res := e.decode(input)
	if res != nil || c.prepare(ctx, false) != nil {
		return nil
	}
	return c.Preview(ctx)
}

// Execute makes the edit: the prepared one when the pipeline prepared it
// and the file is still what it was then, else planned on the file as
// Modify finds it.
func (e *Edit) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	c, _ := call.Plan.(*editCall)
	if c == nil || c.e != e {
		var res *tools.Result
		if c, res = e.decode(call.Input); res != nil {
			return res, nil
		}
	}
	if res := c.refusal(); res != nil {
		return res, nil
	}
	abs, p := c.abs, c.p
	fuzzy := currentSettings(e.settings).Edit.Fuzzy
	// The prepared plan, also for content the user accepted in a review
	// (which Modify takes without planning again).
	plan := c.plan
	planWith := func(fuzzy bool) func(current []byte) ([]byte, error) {
		return func(current []byte) ([]byte, error) {
			if current == nil && p.OldString != "" {
				return nil, resultError{notFound(abs)}
			}
			// An empty old_string creates a file that does not exist.
			var err error
			if plan, err = planEdit(abs, current, p, fuzzy, true); err != nil {
				return nil, err
			}
			return plan.content, nil
		}
	}
	// The prepared plan builds on the content Modify read, which is what it
	// was prepared on: the prepared content itself is not kept that long.
	prepared := func(current []byte) []byte { plan = c.plan; return plan.bytesOn(current) }
	done, err := c.modify(ctx, call, "Edit", maxReadBytes, prepared, planWith(fuzzy),
		// As in Claude Code, a file changed since the Read takes the edit
		// when old_string still picks out exactly one place in what is
		// there now; never by a fuzzy match on text the model has not seen.
		func(current []byte) ([]byte, error) {
			next, err := planWith(false)(current)
			if err == nil && plan.count != 1 {
				err = errors.New("old_string does not occur exactly once in the changed file")
			}
			return next, err
		})
	if err != nil {
		var stale *workspace.StaleError
		if errors.As(err, &stale) && stale.Kind == workspace.ErrNotRead && e.binary(ctx, abs) {
			// Read refused it: asking for a Read would send the model round
			// in a loop.
			return binaryEditRefusal(abs), nil
		}
		return changeResult(err)
	}
	old := done.Old
	var summary string
	switch {
	case old == nil:
		summary = fmt.Sprintf("Created %s.", abs)
	case plan.count == 1:
		summary = fmt.Sprintf("Edited %s: replaced 1 occurrence.", abs)
	default:
		summary = fmt.Sprintf("Edited %s: replaced %d occurrences.", abs, plan.count)
	}
	summary += diskAheadNote(done)
	if changed := done.ChangedSinceRead; changed != nil {
		// The change was planned on the current content under the file's
		// lock, so nobody's change was lost; the model's view is out of date.
		summary += fmt.Sprintf(" Note: the file %s since your last Read (by the user, a formatter or another tool); old_string still matched exactly once, so the edit was applied to the current content. Read the file again if you need to see what else changed.", changed.Why)
	}
	if plan.quotes {
		summary += " (old_string matched with curly quotes typed straight; new_string was written in the file's quote style.)"
	}
	if plan.fuzzy {
		summary += " (old_string matched with whitespace differences ignored, as edit.fuzzy allows.)"
	}
	summary += plan.encoding.keptNote()
	done = decodedChange(done)
	old = done.Old
	diff, hunks, truncated := changeDiff(e.ws, abs, done)
	res := tools.TextResult(summary + "\n\n" + diff)
	res.Structured = patchResult(map[string]any{
		"filePath": abs, "oldString": p.OldString, "newString": p.NewString, "replaceAll": p.ReplaceAll,
		"userModified": false,
	}, hunks, truncated)
	echoText(res.Structured.(map[string]any), "originalFile", old)
	return res, nil
}

// tooLargeToEdit is the error result of an Edit of a file over the read
// cap, which the model cannot have read whole.
func tooLargeToEdit(abs string) *tools.Result {
	return tools.ErrorResult("%s holds more than %d MB, more than Read shows, so Edit does not load it. Change it with Bash (sed -i, or a script that streams it).", abs, maxReadBytes>>20)
}

// isNotebook reports whether path is a Jupyter notebook, which Edit leaves
// to NotebookEdit: replacing text in its JSON would have to escape quotes,
// backslashes and newlines exactly as JSON needs, and one slip leaves a
// notebook that no longer opens.
func isNotebook(path string) bool { return strings.EqualFold(filepath.Ext(path), ".ipynb") }

// notebookRefusal is the error result of an Edit of a notebook.
func notebookRefusal(abs string) *tools.Result {
	return tools.ErrorResult("%s is a Jupyter notebook; Edit does not change notebooks, because text replaced in its JSON must be escaped exactly or the notebook stops opening. Use NotebookEdit with notebook_path, the cell_id Read shows and the whole new_source of the cell.", abs)
}

// binary reports whether the file at abs is one Read refuses as binary, by
// its type or its first bytes.
func (e *Edit) binary(ctx context.Context, abs string) bool {
	if binaryExtension(strings.ToLower(filepath.Ext(abs))) {
		return true
	}
	if _, _, open := e.ws.Document(abs); open {
		return false // an editor buffer is text
	}
	f, _, err := e.ws.OpenRegularContext(ctx, abs)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, binarySniffBytes)
	n, _ := io.ReadFull(f, head)
	return looksBinary(head[:n])
}

// binaryEditRefusal is the error of an Edit of a file that holds NUL bytes
// and other binary content: Read does not show it, and no text replacement
// can be made safely in it.
func binaryEditRefusal(abs string) *tools.Result {
	what := "holds NUL bytes: it is a binary file"
	if binaryExtension(strings.ToLower(filepath.Ext(abs))) {
		what = "is a binary file by its type"
	}
	return tools.ErrorResult("%s %s, and Edit changes text files only (Read does not show it either). Change it with a tool made for its format through Bash, or replace it whole with Write if it should become a text file.", abs, what)
}

// editPlan is the outcome of an edit computed in memory.
type editPlan struct {
	content []byte
	count   int
	fuzzy   bool
	// quotes: old_string matched with curly quotes typed straight.
	quotes bool
	// encoding is the file's, kept; plainUTF8 for most files.
	encoding textEncoding
	// build, until content is built, makes it from the text of the file
	// the plan was made on (bytesOn).
	build func(text string) []byte
}

// bytesOn is the edited content, built on first use from file, which must
// hold what the plan was made on (the plan keeps no copy of it, so a large
// file is not held by a plan waiting for the permission prompt and again by
// workspace.Modify).
func (pl *editPlan) bytesOn(file []byte) []byte {
	if pl.build != nil {
		body := file[len(pl.encoding.bom):]
		pl.content, pl.build = pl.build(unsafe.String(unsafe.SliceData(body), len(body))), nil
	}
	return pl.content
}

// planEdit computes the new content of an edit of the file at path. Errors
// are for the model. Without build only the match is checked and counted,
// and the content is built on first use (editPlan.bytesOn; the fuzzy and
// creating cases are built to be checked).
func planEdit(path string, old []byte, p editParams, fuzzy, build bool) (*editPlan, error) {
	countPlan()
	if old == nil {
		return &editPlan{content: []byte(p.NewString), count: 1}, nil
	}
	if looksBinary(old) {
		return nil, resultError{binaryEditRefusal(path)}
	}
	enc, body, err := fileEncoding(path, old)
	if err != nil {
		return nil, err
	}
	if enc.utf16 != nil {
		// Planned on the decoded text, encoded back (as Claude Code edits
		// UTF-16 files, keeping their encoding).
		plan, err := planText(path, body, false, p, fuzzy, true)
		if err != nil {
			return nil, err
		}
		plan.content, plan.encoding = enc.encode(string(plan.content)), enc
		return plan, nil
	}
	plan, err := planText(path, body, len(enc.bom) > 0, p, fuzzy, build)
	if plan != nil {
		plan.encoding = enc
	}
	return plan, err
}

// planText is planEdit on UTF-8 text (body, which it does not change); bom
// puts a UTF-8 byte-order mark before the new content.
func planText(path string, body []byte, bom bool, p editParams, fuzzy, build bool) (*editPlan, error) {
	// A view of body, not a copy: a large file is held once (body is not
	// changed while text is in use).
	text := unsafe.String(unsafe.SliceData(body), len(body))
	if p.OldString == "" {
		if text != "" {
			return nil, fmt.Errorf("old_string is empty, but %s is not: give the exact text to replace, or use Write to replace the whole file", path)
		}
		return &editPlan{content: withBOM(bom, p.NewString), count: 1}, nil
	}

	le := detectLineEnding(text)
	oldStr, newStr := p.OldString, withLineEnding(p.NewString, le)
	count := strings.Count(text, oldStr)
	if count == 0 {
		// The model writes "\n"; the file may say "\r\n" (or the reverse).
		for _, alt := range []lineEnding{le, lf, crlf} {
			if c := strings.Count(text, withLineEnding(p.OldString, alt)); c > 0 {
				oldStr, newStr, count = withLineEnding(p.OldString, alt), withLineEnding(p.NewString, alt), c
				break
			}
		}
	}
	quotes := false
	if count == 0 {
		if n := len(quotedMatches(text, withLineEnding(p.OldString, le))); n > 0 {
			oldStr, count, quotes = withLineEnding(p.OldString, le), n, true
		}
	}
	if count == 0 {
		if fuzzy {
			if out, n, ok := fuzzyReplace(text, p.OldString, p.NewString, le, p.ReplaceAll); ok {
				return &editPlan{content: withBOM(bom, out), count: n, fuzzy: true}, nil
			} else if n > 1 {
				return nil, fmt.Errorf("old_string was not found exactly in %s, and ignoring whitespace it matches %d places. Add surrounding lines to old_string to make it unique, or set replace_all to true", path, n)
			}
		}
		return nil, notFoundError(path, text, p.OldString, fuzzy)
	}
	if count > 1 && !p.ReplaceAll {
		return nil, fmt.Errorf("old_string occurs %d times in %s (%s); it must occur exactly once. Add surrounding lines to old_string to make it unique, or set replace_all to true to change every occurrence", count, path, lineList(occurrenceLines(straightQuotes(text), straightQuotes(oldStr), maxListedLines), count))
	}
	edited := func(text string) []byte {
		if quotes {
			return withBOM(bom, replaceQuoted(text, oldStr, newStr, p.ReplaceAll))
		}
		n := count
		if !p.ReplaceAll {
			n = 1
		}
		return replaceInto(bom, text, oldStr, newStr, n)
	}
	if !build {
		return &editPlan{count: count, quotes: quotes, build: edited}, nil
	}
	return &editPlan{content: edited(text), count: count, quotes: quotes}, nil
}

// replaceInto is withBOM(bom, strings.Replace(text, old, new, n)) built in
// one buffer: a large file is copied once, not twice.
func replaceInto(bom bool, text, old, new string, n int) []byte {
	size := len(text) + n*(len(new)-len(old))
	// In huge pages from hugemem.Min on, as the file it is built from.
	out := hugemem.Bytes(size + len(bomUTF8))[:0]
	if bom {
		out = append(out, bomUTF8...)
	}
	for ; n > 0; n-- {
		i := strings.Index(text, old)
		if i < 0 {
			break
		}
		out = append(append(out, text[:i]...), new...)
		text = text[i+len(old):]
	}
	return append(out, text...)
}

func withBOM(bom bool, s string) []byte {
	if bom {
		return append(append([]byte{}, bomUTF8...), s...)
	}
	return []byte(s)
}

// occurrenceLines returns the 1-based lines where the first max
// occurrences of sub start in text: an error lists a few, and a file of a
// million occurrences would otherwise cost a number for each.
func occurrenceLines(text, sub string, max int) []int {
	var lines []int
	line, pos := 1, 0
	for len(lines) < max {
		i := strings.Index(text[pos:], sub)
		if i < 0 {
			return lines
		}
		line += strings.Count(text[pos:pos+i], "\n")
		lines = append(lines, line)
		line += strings.Count(sub, "\n")
		pos += i + len(sub)
	}
	return lines
}

// readPrefix matches a line that starts with Read's line-number prefix.
var readPrefix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^ *\d+\t`) })

// notFoundError explains a missing old_string, with a hint when it is near.
func notFoundError(path, text, old string, fuzzy bool) error {
	msg := "old_string was not found in " + path + "."
	if readPrefix().MatchString(old) {
		if lines := readPrefix().ReplaceAllString(old, ""); strings.Contains(text, withLineEnding(lines, detectLineEnding(text))) {
			return errors.New(msg + " It includes Read's line-number prefixes (the number and tab before each line); leave them out")
		}
	}
	if !fuzzy {
		if starts := fuzzyMatches(text, old); len(starts) > 0 {
			return fmt.Errorf("%s Text that differs only in whitespace or indentation is at line %d; copy it exactly as Read shows it (after the tab), or enable the edit.fuzzy setting", msg, starts[0]+1)
		}
	}
	return errors.New(msg + " Read the file again and copy the text exactly, including whitespace and indentation")
}

// fuzzy matching works on whole lines: trailing whitespace is ignored first,
// then leading whitespace too (indentation).

type normalizer func(string) string

var normalizers = []normalizer{
	func(s string) string { return strings.TrimRight(s, " \t\r") },
	func(s string) string { return strings.TrimSpace(s) },
}

// maxFuzzyLines bounds the files whitespace-insensitive matching looks
// into: it holds a string and two offsets for every line (32 bytes), which
// for a file of empty lines is many times the file. Past it only exact
// matches count.
const maxFuzzyLines = 2_000_000

// splitLines splits text into lines without terminators, with the byte
// offset where each starts and ends (before "\r\n" or "\n"); ok is false,
// and nothing is split, past maxFuzzyLines.
func splitLines(text string) (lines []string, starts, ends []int, ok bool) {
	n := strings.Count(text, "\n") + 1
	if n > maxFuzzyLines {
		return nil, nil, nil, false
	}
	lines, starts, ends = make([]string, 0, n), make([]int, 0, n), make([]int, 0, n)
	pos := 0
	for pos <= len(text) {
		i := strings.IndexByte(text[pos:], '\n')
		end := len(text)
		if i >= 0 {
			end = pos + i
		}
		contentEnd := end
		if contentEnd > pos && text[contentEnd-1] == '\r' {
			contentEnd--
		}
		lines = append(lines, text[pos:contentEnd])
		starts = append(starts, pos)
		ends = append(ends, contentEnd)
		if i < 0 {
			break
		}
		pos = end + 1
	}
	return lines, starts, ends, true
}

// patternLines splits old_string into lines; a trailing newline adds no
// empty line to match.
func patternLines(old string) []string {
	old = strings.TrimSuffix(strings.ReplaceAll(old, "\r\n", "\n"), "\n")
	return strings.Split(old, "\n")
}

// windows returns the first line of every non-overlapping run of file lines
// equal to pattern under norm.
func windows(lines, pattern []string, norm normalizer) []int {
	var starts []int
	for i := 0; i+len(pattern) <= len(lines); i++ {
		ok := true
		for j, p := range pattern {
			if norm(lines[i+j]) != norm(p) {
				ok = false
				break
			}
		}
		if ok {
			starts = append(starts, i)
			i += len(pattern) - 1
		}
	}
	return starts
}

// fuzzyMatches returns the 0-based first lines of whitespace-insensitive
// matches of old, using the loosest normalizer that finds any.
func fuzzyMatches(text, old string) []int {
	lines, _, _, ok := splitLines(text)
	pattern := patternLines(old)
	if !ok || strings.TrimSpace(strings.Join(pattern, "")) == "" {
		return nil
	}
	for _, norm := range normalizers {
		if w := windows(lines, pattern, norm); len(w) > 0 {
			return w
		}
	}
	return nil
}

// fuzzyReplace replaces whole-line, whitespace-insensitive matches of old
// with new (in the file's line endings). When indentation differed, new is
// re-indented by the difference between the first matched line and old's
// first line. ok is false when there is no match, or several and not
// replaceAll (n then says how many).
func fuzzyReplace(text, old, new string, le lineEnding, replaceAll bool) (out string, n int, ok bool) {
	lines, starts, ends, split := splitLines(text)
	pattern := patternLines(old)
	if !split || strings.TrimSpace(strings.Join(pattern, "")) == "" {
		return "", 0, false
	}
	for level, norm := range normalizers {
		found := windows(lines, pattern, norm)
		if len(found) == 0 {
			continue
		}
		if len(found) > 1 && !replaceAll {
			return "", len(found), false
		}
		repl := strings.TrimSuffix(strings.ReplaceAll(new, "\r\n", "\n"), "\n")
		// Built front to back in one buffer: splicing each match into the
		// whole text again cost the text's size per match.
		var b strings.Builder
		b.Grow(len(text))
		at := 0
		for _, first := range found {
			last := first + len(pattern) - 1
			r := repl
			if level == 1 {
				r = reindent(r, pattern, lines[first:last+1])
			}
			b.WriteString(text[at:starts[first]])
			b.WriteString(withLineEnding(r, le))
			at = ends[last]
		}
		b.WriteString(text[at:])
		return b.String(), len(found), true
	}
	return "", 0, false
}

func indentOf(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " \t"))] }

// reindent moves s, written with the indentation of pattern, to the
// indentation of matched (the file's lines pattern matched): the first
// line's indentation becomes the file's, and each further level of the
// pattern's unit (say four spaces) becomes one of the file's (say a tab), so
// a space-indented new_string never leaves mixed indentation in a
// tab-indented file.
func reindent(s string, pattern, matched []string) string {
	from, to := indentOf(pattern[0]), indentOf(matched[0])
	patUnit, fileUnit := indentUnits(pattern, matched, from, to)
	if from == to && patUnit == fileUnit {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		base, rest := to, l
		if strings.HasPrefix(l, from) {
			rest = l[len(from):]
		} else if patUnit != "" {
			base = "" // less indented than the first line: translate it whole
		} else {
			continue
		}
		n := 0
		for patUnit != "" && strings.HasPrefix(rest, patUnit) {
			rest = rest[len(patUnit):]
			n++
		}
		lines[i] = base + strings.Repeat(fileUnit, n) + rest
	}
	return strings.Join(lines, "\n")
}

// indentUnits finds one level of indentation in the pattern and in the
// file, from the first pair of lines indented deeper than the first line
// (or from the first lines themselves); both are "" when they agree or no
// pair says.
func indentUnits(pattern, matched []string, from, to string) (patUnit, fileUnit string) {
	pairs := [][2]string{}
	for j := range pattern {
		pi, fi := indentOf(pattern[j]), indentOf(matched[j])
		if strings.HasPrefix(pi, from) && strings.HasPrefix(fi, to) && len(pi) > len(from) && len(fi) > len(to) {
			pairs = append(pairs, [2]string{pi[len(from):], fi[len(to):]})
		}
	}
	pairs = append(pairs, [2]string{from, to})
	for _, p := range pairs {
		if u, v, ok := unitPair(p[0], p[1]); ok {
			if u == v {
				return "", ""
			}
			return u, v
		}
	}
	return "", ""
}

// unitPair splits two runs of one indentation character each (ep in the
// pattern, ef in the file, the same depth) into one level of each.
func unitPair(ep, ef string) (string, string, bool) {
	uniform := func(s string) bool { return s != "" && strings.Count(s, s[:1]) == len(s) }
	if !uniform(ep) || !uniform(ef) {
		return "", "", false
	}
	switch {
	case len(ep)%len(ef) == 0:
		return ep[:len(ep)/len(ef)], ef[:1], true
	case len(ef)%len(ep) == 0:
		return ep[:1], ef[:len(ef)/len(ep)], true
	}
	return "", "", false
}

// Proposal implements tools.Proposer: the prepared edit's whole new text.
func (c *editCall) Proposal() (tools.Proposal, bool) {
	if c.plan == nil {
		return tools.Proposal{}, false
	}
	return c.proposal("Edit", c.plan.encoding.utf16 != nil, 0, func() []byte { return c.plan.bytesOn(c.base) })
}
