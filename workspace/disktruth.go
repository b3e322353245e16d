package workspace

import (
	"bytes"
	"context"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"os"
	"sync"
	"time"
)

// What is the truth of an open document now: the editor's buffer, or the
// disk under it.
//
// The editor reports its buffers, but not whether they still match the
// disk: Neovim never reloads a buffer by itself, and VS Code only once its
// file watcher fires. A formatter, a code generator or `git checkout` run
// through Bash changes the disk under a buffer that is then stale. So each
// open document records the disk state it was opened or last saved against
// (docBase), and docState compares the disk with it: an unchanged disk
// leaves the buffer the truth; a changed disk under a buffer nobody typed in
// makes the disk the truth; a changed disk under a buffer with unsaved
// typing is a conflict that no tool resolves on its own.

// docBase is the disk state an open document's buffer is judged against.
type docBase struct {
	// info is the disk file's stat when stamped; nil when no regular file
	// could be opened there (a document not saved yet).
	info fs.FileInfo
	// racy is set when the file was modified too close to the stamp for
	// its time and size to vouch for its content (racySlack).
	racy bool
	// hashed is set when the content was hashed: hash is the file's bytes,
	// textHash the text an unmodified buffer of it holds (the bytes
	// without a UTF-8 byte-order mark, which editors keep as a flag).
	hashed         bool
	hash, textHash uint64
}

// sameStamp reports whether two stats of one path name the same file with
// the same size and modification time: the cheap identity that spares
// reading the file.
func sameStamp(a, b fs.FileInfo) bool {
	return a != nil && b != nil && os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// stampBase records what the disk holds at path now. Only regular files
// are read, through the workspace's jail; the content is hashed as it is
// read, never held whole.
func (w *Workspace) stampBase(path string) docBase {
	start := time.Now()
	f, st, err := w.OpenRegular(path)
	if err != nil {
		return docBase{}
	}
	defer f.Close()
	b := docBase{info: st, racy: !st.ModTime().Before(start.Add(-racySlack))}
	if b.hash, b.textHash, err = digest(f); err == nil {
		b.hashed = true
	}
	return b
}

// digest hashes a file's bytes (raw) and the text an editor shows of them
// (text: the bytes without a leading UTF-8 byte-order mark).
func digest(r io.Reader) (raw, text uint64, err error) {
	var h, ht maphash.Hash
	h.SetSeed(contentSeed)
	ht.SetSeed(contentSeed)
	bufp := digestBuffers.Get().(*[]byte)
	defer digestBuffers.Put(bufp)
	buf := *bufp
	first, bom := true, false
	for {
		n, err := r.Read(buf)
		chunk := buf[:n]
		h.Write(chunk)
		if first && n > 0 {
			// A read of a regular file returns at least 3 bytes when it has
			// them, so the mark is whole in the first chunk.
			first, bom = false, bytes.HasPrefix(chunk, bomUTF8)
			if bom {
				chunk = chunk[len(bomUTF8):]
			}
		}
		if bom {
			ht.Write(chunk)
		}
		if err == io.EOF {
			if !bom {
				return h.Sum64(), h.Sum64(), nil
			}
			return h.Sum64(), ht.Sum64(), nil
		}
		if err != nil {
			return 0, 0, err
		}
	}
}

// digestBuffers hold the buffers digest reads through: a file is stamped
// at every open, save and change the server makes.
var digestBuffers = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// bomUTF8 is the UTF-8 byte-order mark.
var bomUTF8 = []byte{0xEF, 0xBB, 0xBF}

// hashText is contentHash of a string, without copying it.
func hashText(s string) uint64 { return maphash.String(contentSeed, s) }

// truthKind says where the current content of a path comes from.
type truthKind int

const (
	// notOpen: the editor does not have it open; the disk is the truth.
	notOpen truthKind = iota
	// fromBuffer: open, and the disk has not changed under the buffer
	// (or holds what the buffer holds): the buffer is the truth.
	fromBuffer
	// diskAhead: open, and the disk changed under a buffer without unsaved
	// changes: the disk is the truth, and the buffer is out of date.
	diskAhead
	// conflict: open, with unsaved changes in the buffer, and the disk
	// changed too: neither may be taken over the other.
	conflict
)

// docTruth is docState's answer.
type docTruth struct {
	kind truthKind
	// text and version are the buffer's, when the document is open.
	text    string
	version int32
	// deleted is set when the disk no longer has the file (diskAhead,
	// conflict).
	deleted bool
	// diskHash is the hash of what the disk holds under a buffer that is
	// the truth (fromBuffer), when known (diskHashed): the disk a change
	// planned on the buffer may replace.
	diskHash   uint64
	diskHashed bool
}

// docState decides whether the buffer or the disk holds the truth of
// path. The usual case costs one stat: the disk's size, time and file
// identity as recorded. When they differ (or the record was racy) the file
// is hashed as it is read, once: content that did not change (a touch, a
// save of the same text) or that the buffer holds already (the editor
// reloaded it) leaves the buffer the truth and renews the record.
func (w *Workspace) docState(path string) docTruth {
	w.docs.mu.RLock()
	doc, open := w.docs.byPath[path]
	if !open {
		w.docs.mu.RUnlock()
		return docTruth{kind: notOpen}
	}
	t := docTruth{kind: fromBuffer, text: doc.text, version: doc.version}
	base := doc.base
	behind := doc.behindAt != nil && *doc.behindAt == doc.version
	w.docs.mu.RUnlock()

	if behind {
		t.kind = diskAhead
		return t
	}
	st, err := os.Stat(path)
	if err != nil {
		if base.info == nil {
			// Neither existed on disk when opened nor exists now: a new
			// document not saved yet.
			return t
		}
		t.deleted = true
		t.kind = conflict
		if base.hashed && hashText(t.text) == base.textHash {
			t.kind = diskAhead
		}
		return t
	}
	t.diskHash, t.diskHashed = base.hash, base.hashed
	if !base.racy && sameStamp(base.info, st) {
		return t
	}
	now := w.stampBase(path)
	if !now.hashed {
		// Not readable as a regular file: the read that follows says why.
		return t
	}
	textHash := hashText(t.text)
	switch {
	case now.textHash == textHash, base.hashed && now.hash == base.hash:
		// In step with the buffer, or the same content as before.
		w.renewBase(path, t.version, now)
		t.diskHash, t.diskHashed = now.hash, true
		return t
	case base.hashed && textHash == base.textHash:
		t.kind = diskAhead
	default:
		t.kind = conflict
	}
	return t
}

// renewBase records now as the disk state of the open document at path,
// when the buffer is still at version.
func (w *Workspace) renewBase(path string, version int32, now docBase) {
	w.docs.mu.Lock()
	defer w.docs.mu.Unlock()
	if doc, ok := w.docs.byPath[path]; ok && doc.version == version {
		doc.base = now
	}
}

// rebase records the disk as it is now as the state the open document at
// path is judged against: after the editor saved it, or after a change
// the server made reached both the buffer and the disk.
func (w *Workspace) rebase(path string) {
	w.docs.mu.RLock()
	doc, ok := w.docs.byPath[path]
	var version int32
	if ok {
		version = doc.version
	}
	w.docs.mu.RUnlock()
	if ok {
		w.renewBase(path, version, w.stampBase(path))
	}
}

// markBehind records that the server wrote the file at path itself,
// without the editor: a buffer that does not hold content is out of date
// until the editor sends something new, and the disk is its truth.
func (w *Workspace) markBehind(path string, content []byte) {
	w.docs.mu.Lock()
	defer w.docs.mu.Unlock()
	doc, ok := w.docs.byPath[path]
	if !ok || doc.text == string(content) || doc.text == string(bytes.TrimPrefix(content, bomUTF8)) {
		return
	}
	v := doc.version
	doc.behindAt = &v
}

// ConflictError refuses a change of a file whose editor buffer has unsaved
// changes while the disk changed too since the editor opened or saved it:
// taking either would lose the other.
type ConflictError struct {
	Path string
	// Deleted is set when the disk no longer has the file.
	Deleted bool
	// During is set when the disk changed while the change was being
	// made: the editor's buffer holds the change, unsaved.
	During bool
}

func (e *ConflictError) Error() string {
	if e.During {
		return fmt.Sprintf("%s was changed on disk while the change was being made, so the disk was left as it is: the editor's buffer holds the change, unsaved. Ask the user to compare the buffer with the file and save or revert it, then Read it again.", e.Path)
	}
	disk := "the file on disk was changed too (by a command, a formatter, git)"
	if e.Deleted {
		disk = "the file was deleted on disk"
	}
	return fmt.Sprintf("%s has unsaved changes in the editor, and %s since the editor opened or saved it, so nothing was changed: either would be lost. Ask the user to save the file in the editor (keeping the editor's text) or revert it (keeping the disk's), then Read it again and make the change.", e.Path, disk)
}

// Current is a file's content as the tools see it (ReadCurrent).
type Current struct {
	// Data is the content.
	Data []byte
	// Version is the editor's version when Data is its buffer.
	Version *int32
	// DiskAhead is set when the file is open in the editor but the disk
	// changed under the unmodified buffer: Data is the disk's.
	DiskAhead bool
	// Conflict is set when the buffer has unsaved changes and the disk
	// changed too: Data is the buffer's (what the user sees), and changes
	// are refused with it.
	Conflict *ConflictError
}

// ReadCurrent returns a file's content as the user means it (docState):
// the editor's buffer when the document is open and the disk has not
// changed under it, else the disk, at most limit bytes of it (a
// *TooLargeError beyond). Read, Edit, Write and NotebookEdit all see a
// file through it. With buf nil, an open document's content is its
// buffer's text itself (ReadOnlyBytes), not a copy: the caller must not
// write into it.
func (w *Workspace) ReadCurrent(ctx context.Context, abs string, buf []byte, limit int64) (Current, error) {
	t := w.docState(abs)
	text := func() []byte {
		if buf == nil {
			return ReadOnlyBytes(t.text)
		}
		return append(buf[:0], t.text...)
	}
	switch t.kind {
	case fromBuffer:
		v := t.version
		return Current{Data: text(), Version: &v}, nil
	case conflict:
		v := t.version
		return Current{Data: text(), Version: &v, Conflict: &ConflictError{Path: abs, Deleted: t.deleted}}, nil
	}
	data, err := w.ReadRegular(ctx, abs, buf, limit)
	return Current{Data: data, DiskAhead: t.kind == diskAhead}, err
}
