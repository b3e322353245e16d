package workspace

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/toolhost/toolhost/internal/udiff"
	"github.com/toolhost/toolhost/internal/visible"
)

// Modification is a change of one file a tool wants made, planned from the
// file's content as it is when the change is made.
type Modification struct {
	// Path is absolute.
	Path string
	// Label names the tool and file, e.g. "Edit main.go"; the editor shows it
	// in its undo history and preview.
	Label string
	// Review asks the editor to show the change for review before applying
	// it (a change annotation with needsConfirmation).
	Review bool
	// Plan computes the whole new content from the current content (nil
	// when the file does not exist). It runs under the file's lock, after
	// the freshness check, so what it sees is what gets replaced. An error
	// fails the change (as a *PlanError unless it is one already) and
	// nothing is written; returning current unchanged changes nothing.
	Plan func(current []byte) ([]byte, error)
	// Changed, when set, plans the change of a file that changed since the
	// agent's Read, instead of failing as stale: Edit's exact replacement
	// still applies when old_string picks out one place in what is there
	// now (Claude Code's behaviour). It runs like Plan, under the lock, on
	// the current content; an error from it fails the change as stale.
	Changed func(current []byte) ([]byte, error)
	// Limit is the most bytes the current content may hold (ReadFileMax
	// when 0); a larger file is refused as a *TooLargeError before it is
	// read.
	Limit int64
}

// Modified is what Modify did.
type Modified struct {
	// Old is the content the change replaced; nil when it created the file.
	Old []byte
	// New is the content written.
	New []byte
	// Changed is false when the plan left the content as it was; nothing
	// was sent or written then.
	Changed bool
	// Changes is the line diff of Old and New (udiff.Changes) when the
	// change went to the editor as edits, nil otherwise: a result's diff
	// is built from it rather than diffing again.
	Changes []udiff.Change
	// ChangedSinceRead, when set, says how the file had changed since the
	// agent's Read: the change was planned by Modification.Changed.
	ChangedSinceRead *StaleError
	// DiskAhead is set when the file was open in the editor but the disk
	// had changed under the unmodified buffer: the change was planned on
	// the disk's content, and the buffer brought up to it.
	DiskAhead bool
}

// PlanError is a change that was not made for a reason the model can act
// on: the file could not be read, or the plan refused (old_string not
// found, a cell that does not exist). Nothing was written.
type PlanError struct {
	Err error
}

func (e *PlanError) Error() string { return e.Err.Error() }

// Unwrap lets errors.As find what the plan returned.
func (e *PlanError) Unwrap() error { return e.Err }

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

// EncodingError refuses to send the editor a change of text that is not
// UTF-8 (UTF-16, latin-1, ...) for a file the editor has open or a change
// the user reviews there: edits address UTF-8 text, and the editor holds
// the file decoded in its own way.
type EncodingError struct {
	Path string
	// Open: the editor has the file open (else the change was to be
	// reviewed in the editor).
	Open bool
}

func (e *EncodingError) Error() string {
	where := "the change was to be reviewed in the editor"
	if e.Open {
		where = "the file is open in the editor"
	}
	return fmt.Sprintf("%s is not UTF-8 text (it may be UTF-16 or latin-1) and %s, which addresses text as UTF-8, so it was not changed. Close the file in the editor and try again (a file the editor does not have open is written in its own encoding), or convert it to UTF-8 first (e.g. with iconv in Bash)", e.Path, where)
}

// Refused reports an error that refuses a change for a reason the caller
// can act on — outside the workspace, not a regular file, read-only, an
// encoding the editor cannot address — as opposed to a failure of the
// machinery. Nothing was written.
func Refused(err error) bool {
	var (
		outside  *OutsideError
		special  *NotRegularError
		readOnly *ReadOnlyError
		encoding *EncodingError
		isDir    *IsDirError
		tooLarge *TooLargeError
	)
	return errors.As(err, &outside) || errors.As(err, &special) || errors.As(err, &readOnly) ||
		errors.As(err, &encoding) || errors.As(err, &isDir) || errors.As(err, &tooLarge)
}

// annotationID is the id of the one change annotation of a change.
const annotationID = "toolhost"

// Modify makes a change of one file, in one place for every tool: under
// a per-path lock it refuses a file never read before reading it, reads
// the file's current content (ReadCurrent: the editor's buffer when open
// and the disk has not changed under it, the disk when it has and the
// buffer has no unsaved changes, a *ConflictError when it has both),
// checks that the agent read it
// in this session and that it has not changed since (CheckFresh: a
// *StaleError otherwise), plans the new content from it (m.Plan), and
// applies the change. Once it succeeds the new content counts as read, so
// a second edit in a row needs no new Read.
//
// No lost work: failing on a file changed since the agent's Read is chosen
// over merging because the agent's change was reasoned from the old text;
// the re-read costs one call, a wrong merge costs the user's work. The one
// exception is m.Changed (Edit): the same exact replacement planned on the
// current content, under the same lock, versioned like any other change. A file
// that does not exist needs no Read; the plan gets nil.
//
// With an editor that can apply edits, the change goes out as
// workspace/applyEdit: a CreateFile plus an insertion for a new file (parent
// folders are created first), else a TextDocumentEdit with the document's
// version when it is open (null otherwise) and minimal text edits, all under
// one change annotation labelled m.Label. A refusal is a *RejectedError and
// nothing is written. After an accepted edit the file is on disk before
// Modify returns: the server writes it atomically unless the client
// declares that it saves applied edits, and even then it checks the disk and
// writes the file itself if the save did not happen. Without an editor the
// file is written atomically inside the jail (WriteFile: same folder,
// renamed in place, mode kept, a symlink's target written).
func (w *Workspace) Modify(ctx context.Context, ed Editor, m Modification) (Modified, error) {
	unlock, err := w.locks.lock(ctx, m.Path)
	if err != nil {
		return Modified{}, err
	}
	defer unlock()

	// A file never read is refused before it is read: it may be huge.
	if err := w.CheckRead(m.Path); err != nil {
		return Modified{}, err
	}
	t := w.docState(m.Path)
	if t.kind == conflict {
		return Modified{}, &ConflictError{Path: m.Path, Deleted: t.deleted}
	}
	var current []byte
	if t.kind == fromBuffer {
		// Nothing writes into a change's old content: a view, not a copy
		// of a buffer that may be megabytes.
		current = ReadOnlyBytes(t.text)
	} else {
		limit := m.Limit
		if limit <= 0 {
			limit = ReadFileMax
		}
		current, err = w.ReadRegular(ctx, m.Path, nil, limit)
	}
	plan := m.Plan
	var stale *StaleError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		current = nil
	case errors.As(err, new(*TooLargeError)):
		return Modified{}, err
	case err != nil:
		return Modified{}, &PlanError{Err: fmt.Errorf("cannot read %s: %v", m.Path, err)}
	default:
		if err := w.checkFresh(m.Path, t); err != nil {
			if m.Changed == nil || !errors.As(err, &stale) || stale.Kind != ErrStale {
				return Modified{}, err
			}
			plan = m.Changed
		}
	}
	next, err := plan(current)
	if err != nil {
		if stale != nil {
			return Modified{}, stale
		}
		var pe *PlanError
		if !errors.As(err, &pe) {
			err = &PlanError{Err: err}
		}
		return Modified{}, err
	}
	done := Modified{Old: current, New: next, Changed: current == nil || !bytes.Equal(current, next), ChangedSinceRead: stale}
	if !done.Changed {
		return done, nil
	}
	if done.Changes, err = w.apply(ctx, ed, m, current, next, t); err != nil {
		return Modified{}, err
	}
	done.DiskAhead = t.kind == diskAhead
	if j := w.Journal(); j != nil {
		// Recorded under the path's lock, so the journal's order is the
		// file's; a journal that cannot store leaves the change made.
		_ = j.Record(ctx, ed, m.Path, current, next)
	}
	return done, nil
}

// ReadOnlyBytes is s as a byte slice that shares s's memory, for content
// that is only read (hashed, diffed, written out): copying a file's text
// costs a fresh allocation of its size, page faults and all. Writing into
// the slice is a bug. The empty string gives an empty, non-nil slice: nil
// content means no file.
func ReadOnlyBytes(s string) []byte {
	if s == "" {
		return []byte{}
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// apply sends or writes a planned change; the caller holds the path's lock.
// It returns the line diff it computed for the editor's edits, if any.
//
// t is the document's state the change was planned in. When the disk was
// ahead of an unmodified buffer (diskAhead), old is the disk's content and
// the editor's edit takes the buffer, at its version, from its own stale
// text to next: one versioned edit brings the buffer up to the disk and
// the change at once, refused like any other if the user typed meanwhile.
func (w *Workspace) apply(ctx context.Context, ed Editor, m Modification, old, next []byte, t docTruth) ([]udiff.Change, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The new content is what the agent has seen from here on; the file's
	// time vouches for it only if nothing touches the file from now on.
	written := time.Now()
	// Text that is not UTF-8 (a UTF-16 file whose encoding Write or Edit
	// kept) cannot be sent as edits, which address UTF-8 text, and the
	// editor holds such a file decoded its own way. A file the editor does
	// not have open is written here, byte for byte as planned; one it has
	// open, or a change the user reviews in the editor, is refused.
	// Checked only when an editor would take the change: validating a
	// large file twice over is a fair share of a write's time.
	toEditor := ed != nil && ed.CanApplyEdit()
	notUTF8 := toEditor && (!utf8.Valid(old) || !utf8.Valid(next))
	if notUTF8 && (t.kind != notOpen || m.Review) {
		if err := w.CheckWritable(m.Path); err != nil {
			return nil, err
		}
		return nil, &EncodingError{Path: m.Path, Open: t.kind != notOpen}
	}
	if !toEditor || notUTF8 {
		if err := w.WriteFile(m.Path, next); err != nil {
			return nil, err
		}
		// The editor, if it has the file open, was not told: its buffer
		// is behind the disk now.
		w.markBehind(m.Path, next)
		w.MarkRead(m.Path, next, nil, written)
		return nil, nil
	}

	// The editor would write the file where its path leads: refuse here
	// what the server would refuse to write itself, and text the editor's
	// positions cannot address.
	if err := w.CheckWritable(m.Path); err != nil {
		return nil, err
	}
	var created []string
	var err error
	if old == nil {
		if created, err = mkdirParents(filepath.Dir(m.Path)); err != nil {
			return nil, err
		}
	}
	editorOld, editorNext := old, next
	if t.kind == diskAhead {
		// Deleted on disk or not, the buffer is open: the edit replaces
		// its text (a CreateFile would insert into it).
		// The editor holds the buffer's text, which editors keep without
		// a UTF-8 byte-order mark.
		editorOld = []byte(t.text)
		if !bytes.HasPrefix(editorOld, bomUTF8) {
			editorNext = bytes.TrimPrefix(next, bomUTF8)
		}
	}
	params, changes := w.editParams(m, editorOld, editorNext, t)
	if t.kind == diskAhead {
		// The editor's edits come from the buffer, not from what the
		// change was planned on: the result's diff is made apart.
		changes = nil
		if old != nil {
			sum := sha256.Sum256(old)
			params.Toolhost = &EditHints{Disk: map[string]string{PathToURI(m.Path): hex.EncodeToString(sum[:])}}
		}
	}
	// The disk before the edit: a client that saves applied edits may write
	// the disk's own content plus the change, keeping the user's unsaved
	// typing out of the file (see ensureOnDisk).
	// Only such a client needs it: the others' files are written here.
	var diskBefore []byte
	var diskErr error
	if ed.SavesAppliedEdits() {
		diskBefore, diskErr = w.ReadRegular(context.Background(), m.Path, nil, ReadFileMax)
	}
	res, err := ed.ApplyEdit(ctx, params)
	if err == nil && (res == nil || !res.Applied) {
		reason := ""
		if res != nil {
			reason = res.FailureReason
		}
		err = &RejectedError{Path: m.Path, Reason: reason}
	}
	if err != nil {
		removeEmptyDirs(created)
		return nil, err
	}

	// The editor changed its buffer (and may have sent didChange already);
	// give the overlay a moment to catch up so the read record matches it.
	w.waitDocument(ctx, m.Path, editorNext, editorSyncTimeout)
	if diskErr != nil {
		diskBefore = nil
	}
	// What the disk held when the change was planned: the server writes
	// over nothing else.
	var pre diskExpect
	switch {
	case t.kind == fromBuffer:
		pre = diskExpect{hash: t.diskHash, known: t.diskHashed}
	case old != nil:
		pre = diskExpect{hash: contentHash(old), known: true}
	}
	if err := w.ensureOnDisk(ed, m.Path, next, diskBefore, pre); err != nil {
		return nil, err
	}
	// The buffer and the disk hold the change: the disk as it is now is
	// what the buffer is judged against (a save that did not come, or a
	// client that saved the disk's own content plus the change beside
	// unsaved typing, leave no didSave to say so).
	w.rebase(m.Path)
	var version *int32
	if _, v, open := w.Document(m.Path); open {
		version = &v
	}
	w.MarkRead(m.Path, next, version, written)
	return changes, nil
}

// editParams builds the workspace/applyEdit params of a change, and returns
// the line diff its edits came from (nil for a new file).
func (w *Workspace) editParams(m Modification, old, next []byte, t docTruth) (*ApplyWorkspaceEditParams, []udiff.Change) {
	uri := PathToURI(m.Path)
	// The label names the file, which may hold escapes or a bidirectional
	// override: the editor shows it (a review title, a warning) written out.
	label := visible.Line(m.Label)
	edit := WorkspaceEdit{ChangeAnnotations: map[string]ChangeAnnotation{
		annotationID: {Label: label, NeedsConfirmation: m.Review},
	}}
	if old == nil {
		edit.DocumentChanges = append(edit.DocumentChanges, DocumentChange{CreateFile: &CreateFile{
			Kind: "create", URI: uri, AnnotationID: annotationID,
		}})
		if len(next) > 0 {
			edit.DocumentChanges = append(edit.DocumentChanges, DocumentChange{TextDocumentEdit: &TextDocumentEdit{
				TextDocument: VersionedTextDocumentIdentifier{URI: uri},
				Edits: []AnnotatedTextEdit{{
					Range: Range{}, NewText: string(next), AnnotationID: annotationID,
				}},
			}})
		}
		return &ApplyWorkspaceEditParams{Label: label, Edit: edit}, nil
	}
	ident := VersionedTextDocumentIdentifier{URI: uri}
	if t.kind != notOpen {
		// The version of the text the edits were computed on.
		v := t.version
		ident.Version = &v
	}
	// Views, not copies, of contents nobody changes while the edit is built.
	before, after := unsafe.String(unsafe.SliceData(old), len(old)), unsafe.String(unsafe.SliceData(next), len(next))
	changes := udiff.Changes(before, after)
	edits := textEdits(before, minimalEdits(before, after, changes), w.PositionEncoding(), annotationID)
	edit.DocumentChanges = append(edit.DocumentChanges, DocumentChange{TextDocumentEdit: &TextDocumentEdit{
		TextDocument: ident, Edits: edits,
	}})
	return &ApplyWorkspaceEditParams{Label: label, Edit: edit}, changes
}

// ensureOnDisk makes sure an applied change is on disk: written by the
// server for clients that do not save applied edits, checked (and written
// when missing) for clients that do. A client that saves may write other
// content than the buffer's: the disk's own content plus the change, when
// the buffer held unsaved typing the user has not saved. A file the client
// wrote is left as it wrote it; one it left untouched gets the new content.
//
// The server writes only over what the change was planned against (pre,
// when known): a disk changed meanwhile (a command run beside the call) is
// left as it is, and the change stays in the editor's buffer, unsaved, with
// a *ConflictError saying so.
func (w *Workspace) ensureOnDisk(ed Editor, path string, content, diskBefore []byte, pre diskExpect) error {
	if ed.SavesAppliedEdits() {
		if same, err := w.fileEquals(path, content); err == nil && same {
			return nil
		}
		// A client that wrote something other than the disk's old content
		// (the disk's content plus the change, keeping unsaved typing out)
		// has saved: leave its file as it wrote it.
		if diskBefore != nil {
			if same, err := w.fileEquals(path, diskBefore); err == nil && !same {
				return nil
			}
		}
	}
	if pre.known {
		if sum, err := w.hashFile(path); err == nil && sum != pre.hash {
			return &ConflictError{Path: path, During: true}
		}
	}
	return w.WriteFile(path, content)
}

// diskExpect is the hash of a file's content a write may replace, when known.
type diskExpect struct {
	hash  uint64
	known bool
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
