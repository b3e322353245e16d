package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Change is one file change a tool wants made.
type Change struct {
	// Path is absolute.
	Path string
	// Old is the content the change was computed from (what the tool read
	// from the buffer or disk); nil for a file that does not exist yet.
	Old []byte
	// New is the whole new content.
	New []byte
	// Label names the tool and file, e.g. "Edit main.go"; the editor shows it
	// in its undo history and preview.
	Label string
	// NeedsConfirmation asks the editor to show the change for review before
	// applying it (a change annotation with needsConfirmation).
	NeedsConfirmation bool
}

// RejectedError is returned when the editor declined an edit (the user
// rejected it in the preview, or the document changed under it). Nothing was
// written.
type RejectedError struct {
	Path   string
	Reason string
}

func (e *RejectedError) Error() string {
	reason := e.Reason
	if reason == "" {
		reason = "no reason given"
	}
	return fmt.Sprintf("the editor did not apply the change to %s (%s); the file is unchanged", e.Path, reason)
}

// annotationID is the id of the one change annotation of a change.
const annotationID = "toolhost"

type confirmationKey struct{}

// WithConfirmation marks ctx so that changes made under it ask the editor for
// review (needsConfirmation). The permission layer sets it when the user
// should see an edit in the editor's own preview rather than in a dialog.
func WithConfirmation(ctx context.Context) context.Context {
	return context.WithValue(ctx, confirmationKey{}, true)
}

// ConfirmationRequested reports whether ctx asks for edits to be reviewed.
func ConfirmationRequested(ctx context.Context) bool {
	v, _ := ctx.Value(confirmationKey{}).(bool)
	return v
}

// ApplyChange makes a change and, once it succeeds, records the new content
// as read so a second edit in a row needs no new Read.
//
// No lost work: right before applying, under a per-path lock, the user's
// current view of the file (the editor's buffer when open, else the disk) is
// compared with ch.Old. If anything changed since the tool read it — the user
// typed in the editor, another program wrote the file, the file appeared or
// vanished — the change fails with a *StaleError asking the agent to Read the
// file again; nothing is merged or overwritten. Failing is chosen over
// merging because the agent's edit was reasoned from the old text; the
// re-read costs one call, a wrong merge costs the user's work.
//
// With an editor that can apply edits, the change goes out as
// workspace/applyEdit: a CreateFile plus an insertion for a new file (parent
// folders are created first), else a TextDocumentEdit with the document's
// version when it is open (null otherwise) and minimal text edits, all under
// one change annotation labelled ch.Label. A refusal is a *RejectedError and
// nothing is written. After an accepted edit the file is on disk before
// ApplyChange returns: the server writes it atomically unless the client
// declares that it saves applied edits, and even then it checks the disk and
// writes the file itself if the save did not happen. Without an editor the
// file is written atomically (WriteFileAtomic: same folder, renamed in place,
// mode kept).
func (w *Workspace) ApplyChange(ctx context.Context, ed Editor, ch Change) error {
	unlock, err := w.locks.lock(ctx, ch.Path)
	if err != nil {
		return err
	}
	defer unlock()

	same, why, err := w.sameContent(ch.Path, ch.Old)
	if err != nil {
		return err
	}
	if !same {
		return &StaleError{Path: ch.Path, Kind: ErrStale, Why: why}
	}

	// The new content is what the agent has seen from here on; the file's
	// time vouches for it only if nothing touches the file from now on.
	written := time.Now()
	if ed == nil || !ed.CanApplyEdit() {
		if err := WriteFileAtomic(ch.Path, ch.New); err != nil {
			return err
		}
		w.MarkRead(ch.Path, ch.New, nil, written)
		return nil
	}

	var created []string
	if ch.Old == nil {
		if created, err = mkdirParents(filepath.Dir(ch.Path)); err != nil {
			return err
		}
	}
	params := w.editParams(ch)
	// The disk before the edit: a client that saves applied edits may write
	// the disk's own content plus the change, keeping the user's unsaved
	// typing out of the file (see ensureOnDisk).
	diskBefore, diskErr := os.ReadFile(ch.Path)
	res, err := ed.ApplyEdit(ctx, params)
	if err == nil && (res == nil || !res.Applied) {
		reason := ""
		if res != nil {
			reason = res.FailureReason
		}
		err = &RejectedError{Path: ch.Path, Reason: reason}
	}
	if err != nil {
		removeEmptyDirs(created)
		return err
	}

	// The editor changed its buffer (and may have sent didChange already);
	// give the overlay a moment to catch up so the read record matches it.
	w.waitDocument(ctx, ch.Path, string(ch.New), editorSyncTimeout)
	if diskErr != nil {
		diskBefore = nil
	}
	if err := w.ensureOnDisk(ed, ch, diskBefore); err != nil {
		return err
	}
	var version *int32
	if _, v, open := w.Document(ch.Path); open {
		version = &v
	}
	w.MarkRead(ch.Path, ch.New, version, written)
	return nil
}

// editParams builds the workspace/applyEdit params of a change.
func (w *Workspace) editParams(ch Change) *ApplyWorkspaceEditParams {
	uri := PathToURI(ch.Path)
	edit := WorkspaceEdit{ChangeAnnotations: map[string]ChangeAnnotation{
		annotationID: {Label: ch.Label, NeedsConfirmation: ch.NeedsConfirmation},
	}}
	if ch.Old == nil {
		edit.DocumentChanges = append(edit.DocumentChanges, DocumentChange{CreateFile: &CreateFile{
			Kind: "create", URI: uri, AnnotationID: annotationID,
		}})
		if len(ch.New) > 0 {
			edit.DocumentChanges = append(edit.DocumentChanges, DocumentChange{TextDocumentEdit: &TextDocumentEdit{
				TextDocument: VersionedTextDocumentIdentifier{URI: uri},
				Edits: []AnnotatedTextEdit{{
					Range: Range{}, NewText: string(ch.New), AnnotationID: annotationID,
				}},
			}})
		}
		return &ApplyWorkspaceEditParams{Label: ch.Label, Edit: edit}
	}
	ident := VersionedTextDocumentIdentifier{URI: uri}
	if _, v, open := w.Document(ch.Path); open {
		ident.Version = &v
	}
	old := string(ch.Old)
	edits := textEdits(old, minimalEdits(old, string(ch.New)), w.PositionEncoding(), annotationID)
	edit.DocumentChanges = append(edit.DocumentChanges, DocumentChange{TextDocumentEdit: &TextDocumentEdit{
		TextDocument: ident, Edits: edits,
	}})
	return &ApplyWorkspaceEditParams{Label: ch.Label, Edit: edit}
}

// ensureOnDisk makes sure an applied change is on disk: written by the
// server for clients that do not save applied edits, checked (and written
// when missing) for clients that do. A client that saves may write other
// content than the buffer's: the disk's own content plus the change, when
// the buffer held unsaved typing the user has not saved. A file the client
// wrote is left as it wrote it; one it left untouched gets the new content.
func (w *Workspace) ensureOnDisk(ed Editor, ch Change, diskBefore []byte) error {
	if ed.SavesAppliedEdits() {
		cur, err := os.ReadFile(ch.Path)
		if err == nil && (bytes.Equal(cur, ch.New) || (diskBefore != nil && !bytes.Equal(cur, diskBefore))) {
			return nil
		}
	}
	return WriteFileAtomic(ch.Path, ch.New)
}

// mkdirParents creates dir and its missing parents and returns the folders
// it created, deepest last.
func mkdirParents(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		missing = append([]string{d}, missing...)
		if filepath.Dir(d) == d {
			break
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create folder %s: %w", dir, err)
	}
	return missing, nil
}

// removeEmptyDirs removes folders mkdirParents created, deepest first, when
// the change they were made for did not happen. Folders something else has
// filled meanwhile stay.
func removeEmptyDirs(created []string) {
	for i := len(created) - 1; i >= 0; i-- {
		if os.Remove(created[i]) != nil {
			return
		}
	}
}

// pathLocks serialises changes per path: the freshness check, the edit and
// the new read record of one change are not interleaved with another's.
type pathLocks struct {
	mu sync.Mutex
	// byPath holds a one-slot semaphore per path; a channel rather than a
	// mutex so waiting can end with the context.
	byPath map[string]chan struct{}
}

func (l *pathLocks) lock(ctx context.Context, path string) (unlock func(), err error) {
	l.mu.Lock()
	if l.byPath == nil {
		l.byPath = map[string]chan struct{}{}
	}
	sem, ok := l.byPath[path]
	if !ok {
		sem = make(chan struct{}, 1)
		l.byPath[path] = sem
	}
	l.mu.Unlock()
	select {
	case sem <- struct{}{}:
		return func() { <-sem }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
