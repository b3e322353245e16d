package workspace

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// ContentChange is one entry of textDocument/didChange's contentChanges:
// with a Range it replaces that range (incremental sync), without one it is
// the whole new text (full sync).
type ContentChange struct {
	Range *Range `json:"range,omitempty"`
	// RangeLength is deprecated in LSP and ignored: Range is authoritative.
	RangeLength *uint32 `json:"rangeLength,omitempty"`
	Text        string  `json:"text"`
}

// openDocument is a document the editor has open.
type openDocument struct {
	uri        string
	languageID string
	version    int32
	text       string
	// base is the disk state the buffer was opened or last saved against
	// (see disktruth.go).
	base docBase
	// behindAt is set, to the version the buffer had then, when the server
	// wrote the file itself without the editor (no applyEdit): the disk
	// is ahead of this buffer until the editor sends something new.
	behindAt *int32
}

// documents is the overlay of documents open in the editor, by absolute path.
type documents struct {
	mu       sync.RWMutex
	encoding string
	byPath   map[string]*openDocument
	// changed is closed and replaced whenever a document opens, changes or
	// closes, waking whoever waits for the editor to catch up.
	changed chan struct{}
}

// notifyLocked wakes waiters; mu must be held for writing.
func (d *documents) notifyLocked() {
	if d.changed != nil {
		close(d.changed)
	}
	d.changed = make(chan struct{})
}

// Open records textDocument/didOpen. Only file:// documents are tracked;
// others are an error the server may log and ignore.
func (w *Workspace) Open(uri, languageID string, version int32, text string) error {
	path, err := URIToPath(uri)
	if err != nil {
		return err
	}
	// The disk is looked at before the lock is taken: nothing waits on
	// the overlay while a file is read.
	base := w.stampBase(path)
	w.docs.mu.Lock()
	defer w.docs.mu.Unlock()
	if w.docs.byPath == nil {
		w.docs.byPath = map[string]*openDocument{}
	}
	w.docs.byPath[path] = &openDocument{uri: uri, languageID: languageID, version: version, text: text, base: base}
	w.docs.notifyLocked()
	return nil
}

// Change records textDocument/didChange: changes apply in order, each to the
// text the previous one produced, with positions in the negotiated encoding.
// A change to a document that is not open is an error (the editor must open
// it first) and changes nothing.
func (w *Workspace) Change(uri string, version int32, changes []ContentChange) error {
	path, err := URIToPath(uri)
	if err != nil {
		return err
	}
	w.docs.mu.Lock()
	defer w.docs.mu.Unlock()
	doc, ok := w.docs.byPath[path]
	if !ok {
		return fmt.Errorf("didChange for %s, which is not open", uri)
	}
	text, err := applyChanges(doc.text, changes, w.docs.encoding)
	if err != nil {
		return fmt.Errorf("didChange for %s: %w", uri, err)
	}
	doc.text = text
	doc.version = version
	doc.behindAt = nil
	w.docs.notifyLocked()
	return nil
}

// errBackwardRange is a change whose range ends before it starts.
var errBackwardRange = errors.New("a change's range ends before it starts")

// applyChanges applies didChange's content changes in order, each to the
// text the ones before it produced.
//
// An edit of many places at once (a replace-all, a formatter's edits, a
// multi-cursor edit) comes from VS Code as changes that run backwards
// through the text, each ending at or before the start of the one before
// it: each leaves the positions of the ones after it as they were in the
// text before. Those are applied in one pass, in time linear in the text
// and the changes; applied one by one, each change cost a copy of the
// whole text and a scan to its position (ten thousand changes of a 5 MB
// document: 100 GB of copying, with the documents' lock held). Changes in
// any other order are applied one by one.
func applyChanges(text string, changes []ContentChange, encoding string) (string, error) {
	for i := len(changes) - 1; i >= 0; i-- {
		if changes[i].Range == nil {
			text, changes = changes[i].Text, changes[i+1:]
			break
		}
	}
	if len(changes) > 1 && runBackwards(changes) {
		if out, ok := applyInOnePass(text, changes, encoding == EncodingUTF8); ok {
			return out, nil
		}
	}
	for _, c := range changes {
		start, end := offsetOf(text, c.Range.Start, encoding), offsetOf(text, c.Range.End, encoding)
		if end < start {
			return "", errBackwardRange
		}
		text = text[:start] + c.Text + text[end:]
	}
	return text, nil
}

// applyInOnePass applies changes that run backwards through text (see
// applyChanges) against text itself. It declines (false) when a range is
// not one of text as it is, ending before it starts or with a position
// past a line's end or inside a character: applied one by one, such a
// position can name a place in the text an earlier change inserted.
func applyInOnePass(text string, changes []ContentChange, utf8 bool) (string, bool) {
	cur := offsetCursor{text: text, utf8: utf8}
	offsets := make([][2]int, len(changes))
	size := len(text)
	for i := len(changes) - 1; i >= 0; i-- {
		start, exactStart := cur.offset(changes[i].Range.Start)
		end, exactEnd := cur.offset(changes[i].Range.End)
		if !exactStart || !exactEnd || end < start {
			return "", false
		}
		offsets[i] = [2]int{start, end}
		size += len(changes[i].Text) - (end - start)
	}
	var out strings.Builder
	out.Grow(size)
	done := 0
	for i := len(changes) - 1; i >= 0; i-- {
		out.WriteString(text[done:offsets[i][0]])
		out.WriteString(changes[i].Text)
		done = offsets[i][1]
	}
	out.WriteString(text[done:])
	return out.String(), true
}

// runBackwards reports whether every change's range ends at or before the
// start of the one before it (all changes have ranges).
func runBackwards(changes []ContentChange) bool {
	for i := 1; i < len(changes); i++ {
		if before(changes[i-1].Range.Start, changes[i].Range.End) {
			return false
		}
	}
	return true
}

// before reports whether a comes before b.
func before(a, b Position) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
}

// Close records textDocument/didClose: the file on disk is the truth again.
func (w *Workspace) Close(uri string) error {
	path, err := URIToPath(uri)
	if err != nil {
		return err
	}
	w.docs.mu.Lock()
	defer w.docs.mu.Unlock()
	delete(w.docs.byPath, path)
	w.docs.notifyLocked()
	return nil
}

// Save records textDocument/didSave: the buffer was written, so the disk
// as it is now becomes the state the buffer is judged against. Waiters are
// woken so a change waiting for the editor to save can look at the disk
// again.
func (w *Workspace) Save(uri string) error {
	path, err := URIToPath(uri)
	if err != nil {
		return err
	}
	w.rebase(path)
	w.docs.mu.Lock()
	defer w.docs.mu.Unlock()
	w.docs.notifyLocked()
	return nil
}

// Document returns the editor's text and version of the document at path,
// and whether the editor has it open.
func (w *Workspace) Document(path string) (text string, version int32, open bool) {
	w.docs.mu.RLock()
	defer w.docs.mu.RUnlock()
	doc, ok := w.docs.byPath[path]
	if !ok {
		return "", 0, false
	}
	return doc.text, doc.version, true
}

// OpenDocuments returns the paths of the documents the editor has open.
func (w *Workspace) OpenDocuments() []string {
	w.docs.mu.RLock()
	defer w.docs.mu.RUnlock()
	paths := make([]string, 0, len(w.docs.byPath))
	for p := range w.docs.byPath {
		paths = append(paths, p)
	}
	return paths
}

// editorSyncTimeout bounds how long Modify waits for the editor's
// didChange after it applied an edit. Editors send it before answering
// applyEdit in practice; the bound only keeps a slow or odd client from
// stalling a tool call.
const editorSyncTimeout = 2 * time.Second

// waitDocument waits until the open document at path holds want, is closed,
// or the timeout or ctx ends. It reports whether the overlay agrees with want
// (a closed document agrees: the disk is the truth then).
func (w *Workspace) waitDocument(ctx context.Context, path string, want []byte, timeout time.Duration) bool {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		w.docs.mu.Lock()
		if w.docs.changed == nil {
			w.docs.changed = make(chan struct{})
		}
		wake := w.docs.changed
		doc, open := w.docs.byPath[path]
		agrees := !open || doc.text == string(want) // compared without a copy
		w.docs.mu.Unlock()
		if agrees {
			return true
		}
		select {
		case <-wake:
		case <-timer.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}
