package workspace

import (
	"context"
	"fmt"
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
	enc := w.docs.encoding
	text := doc.text
	for _, c := range changes {
		if c.Range == nil {
			text = c.Text
			continue
		}
		start, end := offsetOf(text, c.Range.Start, enc), offsetOf(text, c.Range.End, enc)
		if end < start {
			return fmt.Errorf("didChange for %s has a range that ends before it starts", uri)
		}
		text = text[:start] + c.Text + text[end:]
	}
	doc.text = text
	doc.version = version
	doc.behindAt = nil
	w.docs.notifyLocked()
	return nil
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
