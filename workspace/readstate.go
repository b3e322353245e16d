package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"os"
	"sync"
	"time"
)

// contentSeed seeds the content hashes of read records. maphash rather
// than a cryptographic hash: records never leave the process, the seed is
// random and secret, so a collision cannot be engineered, and hashing is
// several times faster than SHA-256 on every Read.
var contentSeed = maphash.MakeSeed()

func contentHash(data []byte) uint64 { return maphash.Bytes(contentSeed, data) }

// readRecord is what the agent saw when it last read a file.
type readRecord struct {
	hash uint64
	// modTime and size are the disk file's at the time, a shortcut that
	// spares hashing an unchanged file.
	modTime time.Time
	size    int64
	// version is the editor's document version when the read came from an
	// open buffer.
	version *int32
}

// readState is the per-session record of reads, by absolute path.
type readState struct {
	mu     sync.Mutex
	byPath map[string]readRecord
	// unreadAllowed lets CheckFresh pass files never read (see
	// SetReadBeforeWrite).
	unreadAllowed bool
}

// SetReadBeforeWrite sets whether changing an existing file requires a Read
// of it in this session first (the default). A one-shot caller such as
// `toolhost call`, whose every call is a new session, turns it off; a file
// that was read is still checked for changes since.
func (w *Workspace) SetReadBeforeWrite(required bool) {
	w.reads.mu.Lock()
	w.reads.unreadAllowed = !required
	w.reads.mu.Unlock()
}

// ReadFile returns a file's content as the user sees it: the editor's buffer
// when the document is open (with its version; shared, read-only: see
// ReadCurrent), else the disk.
func (w *Workspace) ReadFile(abs string) (data []byte, version *int32, err error) {
	return w.ReadFileInto(abs, nil)
}

// ReadFileInto is ReadFile reading into buf's storage (grown when too small),
// for callers that reuse buffers: the result aliases buf. Only regular files
// are read, at most ReadFileMax bytes (see ReadRegular).
func (w *Workspace) ReadFileInto(abs string, buf []byte) (data []byte, version *int32, err error) {
	return w.ReadFileLimit(context.Background(), abs, buf, ReadFileMax)
}

// ReadFileLimit is ReadFileInto with a context that ends the read and a
// limit on the bytes a file on disk may hold.
// The editor's buffer is the content while the disk has not changed under
// it (ReadCurrent says more).
func (w *Workspace) ReadFileLimit(ctx context.Context, abs string, buf []byte, limit int64) (data []byte, version *int32, err error) {
	cur, err := w.ReadCurrent(ctx, abs, buf, limit)
	return cur.Data, cur.Version, err
}

// racySlack is how far before a read a file's modification time must lie
// for the time to vouch for the content read. File systems stamp times
// from a coarse clock (a scheduler tick, up to 10 ms behind), so a change
// made while the read ran can carry a time slightly before its start.
const racySlack = 20 * time.Millisecond

// MarkRead records that the agent has seen data (the content of abs, at the
// editor's version when it came from an open buffer), which was read (or
// written) starting at readStart. Edit and Write check against it with
// CheckFresh.
//
// The file's modification time and size are recorded as a shortcut for
// CheckFresh only when the time lies clearly before readStart. A file
// modified during or just before the read ("racily clean", as git calls
// it) might hold other content than data under the same time and size, so
// CheckFresh then compares content instead.
func (w *Workspace) MarkRead(abs string, data []byte, version *int32, readStart time.Time) {
	var rec readRecord
	if version != nil {
		v := *version
		rec.version = &v
	}
	// Only content that came from the disk is vouched for by the disk's
	// time; a buffer's text is judged by its version and hash.
	if st, err := os.Stat(abs); err == nil && version == nil && st.ModTime().Before(readStart.Add(-racySlack)) {
		rec.modTime, rec.size = st.ModTime(), st.Size()
	}
	w.reads.mu.Lock()
	prev, seen := w.reads.byPath[abs]
	w.reads.mu.Unlock()
	if seen && version == nil && prev.version == nil && !rec.modTime.IsZero() &&
		prev.modTime.Equal(rec.modTime) && prev.size == rec.size && int64(len(data)) == rec.size {
		// Read again, unchanged on disk by the same test CheckFresh trusts:
		// the content hash is the one already recorded, and a large file
		// read page by page is not hashed whole for every page.
		rec.hash = prev.hash
	} else {
		rec.hash = contentHash(data)
	}
	w.reads.mu.Lock()
	defer w.reads.mu.Unlock()
	if w.reads.byPath == nil {
		w.reads.byPath = map[string]readRecord{}
	}
	w.reads.byPath[abs] = rec
}

// ForgetRead drops the read record of abs (the file was deleted or moved).
func (w *Workspace) ForgetRead(abs string) {
	w.reads.mu.Lock()
	defer w.reads.mu.Unlock()
	delete(w.reads.byPath, abs)
}

// ErrNotRead and ErrStale classify a StaleError.
var (
	ErrNotRead = errors.New("file not read in this session")
	ErrStale   = errors.New("file changed since it was read")
)

// StaleError says a file may not be changed yet: the agent never read it, or
// it changed since. Its text tells the model what to do next.
type StaleError struct {
	Path string
	// Kind is ErrNotRead or ErrStale.
	Kind error
	// Why says what changed, for ErrStale.
	Why string
}

func (e *StaleError) Error() string {
	if e.Kind == ErrNotRead {
		return fmt.Sprintf("%s has not been read in this session. Read it first, then make the change.", e.Path)
	}
	return fmt.Sprintf("%s %s since you last read it. Read the file again to see its current content, then make the change.", e.Path, e.Why)
}

// Unwrap lets errors.Is(err, ErrNotRead) and errors.Is(err, ErrStale) work.
func (e *StaleError) Unwrap() error { return e.Kind }

// CheckFresh returns nil when the agent's last read of abs still shows the
// file as it is: the open buffer when the editor has it open, else the disk.
// Otherwise a *StaleError: never read, or changed since (in the editor or on
// disk, judged by content, so a save that changes nothing is not a change).
//
// A document open in the editor is judged by what docState makes its
// truth: the buffer, or the disk when it changed under an unmodified
// buffer; a buffer with unsaved changes over a changed disk is a
// *ConflictError.
func (w *Workspace) CheckFresh(abs string) error {
	return w.checkFresh(abs, w.docState(abs))
}

// checkFresh is CheckFresh with the document's state already decided.
func (w *Workspace) checkFresh(abs string, t docTruth) error {
	if t.kind == conflict {
		return &ConflictError{Path: abs, Deleted: t.deleted}
	}
	w.reads.mu.Lock()
	rec, ok := w.reads.byPath[abs]
	unreadAllowed := w.reads.unreadAllowed
	w.reads.mu.Unlock()
	if !ok {
		if unreadAllowed {
			return nil
		}
		return &StaleError{Path: abs, Kind: ErrNotRead}
	}
	if t.kind == fromBuffer {
		if rec.version != nil && *rec.version == t.version {
			return nil
		}
		if hashText(t.text) != rec.hash {
			return &StaleError{Path: abs, Kind: ErrStale, Why: "was changed in the editor"}
		}
		return nil
	}
	st, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return &StaleError{Path: abs, Kind: ErrStale, Why: "was deleted or moved"}
	}
	if err != nil {
		return err
	}
	if st.ModTime().Equal(rec.modTime) && st.Size() == rec.size && !rec.modTime.IsZero() {
		return nil
	}
	sum, err := w.hashFile(abs)
	if err != nil {
		return err
	}
	if sum != rec.hash {
		return &StaleError{Path: abs, Kind: ErrStale, Why: "was changed on disk"}
	}
	return nil
}

// CheckRead refuses, before anything of the file is read, a change of an
// existing file the agent has not read in this session (a *StaleError of
// kind ErrNotRead): the refusal costs a stat, not a read of what may be a
// file of gigabytes. A file that does not exist needs no Read.
func (w *Workspace) CheckRead(abs string) error {
	w.reads.mu.Lock()
	_, read := w.reads.byPath[abs]
	unreadAllowed := w.reads.unreadAllowed
	w.reads.mu.Unlock()
	if read || unreadAllowed {
		return nil
	}
	if _, _, open := w.Document(abs); open {
		return &StaleError{Path: abs, Kind: ErrNotRead}
	}
	if st, err := os.Stat(abs); err != nil || !st.Mode().IsRegular() {
		// Missing (a change may create it), unreadable, or not a file:
		// the read that follows says which.
		return nil
	}
	return &StaleError{Path: abs, Kind: ErrNotRead}
}

// hashFile is contentHash of a regular file's content, read in pieces.
func (w *Workspace) hashFile(abs string) (uint64, error) {
	f, _, err := w.OpenRegular(abs)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var h maphash.Hash
	h.SetSeed(contentSeed)
	if _, err := io.Copy(&h, f); err != nil {
		return 0, err
	}
	return h.Sum64(), nil
}

// fileEquals reports whether the regular file abs holds exactly want,
// reading it in pieces.
func (w *Workspace) fileEquals(abs string, want []byte) (bool, error) {
	f, _, err := w.OpenRegular(abs)
	if err != nil {
		return false, err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	rest := want
	for {
		n, err := f.Read(buf)
		if n > len(rest) || !bytes.Equal(buf[:n], rest[:n]) {
			return false, nil
		}
		rest = rest[n:]
		if err == io.EOF {
			return len(rest) == 0, nil
		}
		if err != nil {
			return false, err
		}
	}
}
