// Package workspacetest provides a fake editor for tests of code that makes
// changes through workspace.Modify: it applies workspace/applyEdit
// params to in-memory buffers the way an LSP client does (UTF-16 positions,
// document versions, CreateFile), can save them to disk, can reject, and
// records every request.
package workspacetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/toolhost/toolhost/workspace"
)

// FakeEditor implements workspace.Editor. The zero value is not usable: call
// NewFakeEditor.
type FakeEditor struct {
	// ws, when set, is told about documents the fake opens and changes, as a
	// real editor's didOpen/didChange would.
	ws *workspace.Workspace

	mu sync.Mutex
	// noApplyEdit makes CanApplyEdit report false.
	noApplyEdit bool
	// saves makes the fake write applied documents to disk and report
	// SavesAppliedEdits.
	saves bool
	// reject, when set, is the failureReason of every answer.
	reject string
	// buffers are the documents the fake holds, by absolute path.
	buffers map[string]*buffer
	// calls are every params received, in order.
	calls []*workspace.ApplyWorkspaceEditParams
}

// buffer is one document in the fake.
type buffer struct {
	text    string
	version int32
	// open is whether the document is open (reported to the workspace).
	open bool
	// deleted is set by a delete operation: the file goes, with its buffer.
	deleted bool
}

// NewFakeEditor returns an editor that applies edits and does not save
// them. ws may be nil; when set, documents opened with Open are reported to
// it and applied edits to open documents are reported as didChange before
// ApplyEdit returns.
func NewFakeEditor(ws *workspace.Workspace) *FakeEditor {
	return &FakeEditor{ws: ws, buffers: map[string]*buffer{}}
}

// SetCanApplyEdit sets the workspace.applyEdit capability (true by default).
func (f *FakeEditor) SetCanApplyEdit(can bool) {
	f.mu.Lock()
	f.noApplyEdit = !can
	f.mu.Unlock()
}

// SetSaves makes the fake save applied documents to disk and declare
// savesAppliedEdits.
func (f *FakeEditor) SetSaves(saves bool) {
	f.mu.Lock()
	f.saves = saves
	f.mu.Unlock()
}

// Reject makes every following edit fail with reason; "" accepts again.
func (f *FakeEditor) Reject(reason string) {
	f.mu.Lock()
	f.reject = reason
	f.mu.Unlock()
}

// Open opens a document with text at version 1, as if the user opened it,
// and reports it to the workspace. The text need not match the disk (an
// unsaved buffer).
func (f *FakeEditor) Open(path, text string) error {
	f.mu.Lock()
	f.buffers[path] = &buffer{text: text, version: 1, open: true}
	f.mu.Unlock()
	if f.ws != nil {
		return f.ws.Open(workspace.PathToURI(path), "", 1, text)
	}
	return nil
}

// Type replaces an open document's text as if the user typed, bumping its
// version and reporting a full didChange.
func (f *FakeEditor) Type(path, text string) error {
	f.mu.Lock()
	b, ok := f.buffers[path]
	if !ok || !b.open {
		f.mu.Unlock()
		return fmt.Errorf("%s is not open", path)
	}
	b.text = text
	b.version++
	v := b.version
	f.mu.Unlock()
	if f.ws != nil {
		return f.ws.Change(workspace.PathToURI(path), v, []workspace.ContentChange{{Text: text}})
	}
	return nil
}

// Buffer returns the fake's text and version of path, and whether it holds it.
func (f *FakeEditor) Buffer(path string) (text string, version int32, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.buffers[path]
	if !ok {
		return "", 0, false
	}
	return b.text, b.version, true
}

// Calls returns every params received, in order.
func (f *FakeEditor) Calls() []*workspace.ApplyWorkspaceEditParams {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*workspace.ApplyWorkspaceEditParams(nil), f.calls...)
}

// CanApplyEdit implements workspace.Editor.
func (f *FakeEditor) CanApplyEdit() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.noApplyEdit
}

// SavesAppliedEdits implements workspace.Editor.
func (f *FakeEditor) SavesAppliedEdits() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.saves
}

// ApplyEdit implements workspace.Editor: all changes apply, or none do.
func (f *FakeEditor) ApplyEdit(ctx context.Context, params *workspace.ApplyWorkspaceEditParams) (*workspace.ApplyWorkspaceEditResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.calls = append(f.calls, params)
	if f.reject != "" {
		reason := f.reject
		f.mu.Unlock()
		return &workspace.ApplyWorkspaceEditResult{Applied: false, FailureReason: reason}, nil
	}
	// Work on copies so a failing change leaves every buffer as it was.
	staged := map[string]*buffer{}
	get := func(path string) (*buffer, error) {
		if b, ok := staged[path]; ok {
			return b, nil
		}
		if b, ok := f.buffers[path]; ok {
			c := *b
			staged[path] = &c
			return &c, nil
		}
		// Like an editor, load a document it does not hold from disk.
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		b := &buffer{text: string(data), version: 0}
		staged[path] = b
		return b, nil
	}
	var fail string
	for i, dc := range params.Edit.DocumentChanges {
		if fail = f.stage(dc, get, staged); fail != "" {
			fail = fmt.Sprintf("change %d: %s", i, fail)
			break
		}
	}
	if fail != "" {
		f.mu.Unlock()
		return &workspace.ApplyWorkspaceEditResult{Applied: false, FailureReason: fail}, nil
	}
	type report struct {
		path    string
		text    string
		version int32
		open    bool
	}
	var reports []report
	var toSave []report
	var deleted []report
	for path, b := range staged {
		if b.deleted {
			// Like an editor, a deleted file's document closes.
			delete(f.buffers, path)
			deleted = append(deleted, report{path: path, open: b.open})
			continue
		}
		old, existed := f.buffers[path]
		changed := !existed || old.text != b.text
		if changed && existed {
			b.version++
		}
		f.buffers[path] = b
		if b.open && changed {
			reports = append(reports, report{path: path, text: b.text, version: b.version})
		}
		if f.saves {
			toSave = append(toSave, report{path: path, text: b.text, open: b.open})
		}
	}
	f.mu.Unlock()
	for _, d := range deleted {
		if err := os.Remove(d.path); err != nil && !os.IsNotExist(err) {
			return nil, err
		}
		if d.open && f.ws != nil {
			if err := f.ws.Close(workspace.PathToURI(d.path)); err != nil {
				return nil, err
			}
		}
	}
	for _, s := range toSave {
		if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(s.path, []byte(s.text), 0o644); err != nil {
			return nil, err
		}
	}
	if f.ws != nil {
		for _, r := range reports {
			if err := f.ws.Change(workspace.PathToURI(r.path), r.version, []workspace.ContentChange{{Text: r.text}}); err != nil {
				return nil, err
			}
		}
		// An editor that saves a document it has open says so.
		for _, s := range toSave {
			if s.open {
				if err := f.ws.Save(workspace.PathToURI(s.path)); err != nil {
					return nil, err
				}
			}
		}
	}
	return &workspace.ApplyWorkspaceEditResult{Applied: true}, nil
}

// stage applies one document change to the staged buffers; it returns a
// failure reason or "".
func (f *FakeEditor) stage(dc workspace.DocumentChange, get func(string) (*buffer, error), staged map[string]*buffer) string {
	switch {
	case dc.CreateFile != nil && dc.CreateFile.Kind == "delete":
		path, err := workspace.URIToPath(dc.CreateFile.URI)
		if err != nil {
			return err.Error()
		}
		b, err := get(path)
		if err != nil {
			return err.Error()
		}
		b.deleted = true
		return ""
	case dc.CreateFile != nil:
		path, err := workspace.URIToPath(dc.CreateFile.URI)
		if err != nil {
			return err.Error()
		}
		_, held := f.buffers[path]
		_, statErr := os.Stat(path)
		exists := held || statErr == nil
		if _, ok := staged[path]; ok {
			exists = true
		}
		opts := dc.CreateFile.Options
		if exists && (opts == nil || (!opts.Overwrite && !opts.IgnoreIfExists)) {
			return path + " already exists"
		}
		if exists && opts.IgnoreIfExists {
			return ""
		}
		staged[path] = &buffer{version: 0}
		return ""
	case dc.TextDocumentEdit != nil:
		tde := dc.TextDocumentEdit
		path, err := workspace.URIToPath(tde.TextDocument.URI)
		if err != nil {
			return err.Error()
		}
		b, err := get(path)
		if err != nil {
			return err.Error()
		}
		if v := tde.TextDocument.Version; v != nil && (!b.open || *v != b.version) {
			return fmt.Sprintf("version %d of %s does not match the editor's version %d", *v, path, b.version)
		}
		text, err := applyUTF16Edits(b.text, tde.Edits)
		if err != nil {
			return err.Error()
		}
		b.text = text
		return ""
	}
	return "empty document change"
}

// applyUTF16Edits applies LSP text edits with UTF-16 positions. It is written
// independently of the workspace's own conversion so tests cross-check both.
func applyUTF16Edits(text string, edits []workspace.AnnotatedTextEdit) (string, error) {
	type span struct {
		start, end int
		text       string
	}
	spans := make([]span, 0, len(edits))
	for _, e := range edits {
		s, err := utf16Offset(text, e.Range.Start)
		if err != nil {
			return "", err
		}
		end, err := utf16Offset(text, e.Range.End)
		if err != nil {
			return "", err
		}
		if end < s {
			return "", fmt.Errorf("edit range ends before it starts")
		}
		spans = append(spans, span{s, end, e.NewText})
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	for i := 1; i < len(spans); i++ {
		if spans[i].start < spans[i-1].end {
			return "", fmt.Errorf("overlapping edits")
		}
	}
	for i := len(spans) - 1; i >= 0; i-- {
		s := spans[i]
		text = text[:s.start] + s.text + text[s.end:]
	}
	return text, nil
}

// utf16Offset is the byte offset of an LSP position in UTF-16 code units.
// Unlike lenient editors it rejects positions past a line's end or inside a
// surrogate pair, so tests notice sloppy positions.
func utf16Offset(text string, p workspace.Position) (int, error) {
	off := 0
	for line := uint32(0); line < p.Line; line++ {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return 0, fmt.Errorf("line %d is past the end of the document", p.Line)
		}
		off += i + 1
	}
	lineText := text[off:]
	if i := strings.IndexByte(lineText, '\n'); i >= 0 {
		lineText = lineText[:i]
	}
	if n := len(lineText); n > 0 && lineText[n-1] == '\r' {
		lineText = lineText[:n-1]
	}
	units := 0
	for i := 0; i <= len(lineText); {
		if units == int(p.Character) {
			return off + i, nil
		}
		if i == len(lineText) || units > int(p.Character) {
			break
		}
		r, size := utf8.DecodeRuneInString(lineText[i:])
		units += len(utf16.Encode([]rune{r}))
		i += size
	}
	return 0, fmt.Errorf("character %d is past the end of line %d or inside a character", p.Character, p.Line)
}
