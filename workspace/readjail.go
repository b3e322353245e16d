package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"

	"github.com/toolhost/toolhost/internal/pathutil"
)

// The jail for reads: a path inside a workspace folder is opened through
// that folder's os.Root, which resolves every step at the moment of the
// open and refuses to leave the folder. The permission checker judged the
// path before the call ran; a folder swapped for a link to elsewhere since
// then makes the read fail instead of showing what lies outside without the
// prompt an outside path gets. Paths outside every folder (which the
// checker asked the user about) open as given.

// EscapeError refuses to read a path given inside a workspace folder that,
// when opened, led outside it: through a symbolic link to elsewhere, or
// because a folder on its way changed while the call ran.
type EscapeError struct {
	// Path is the path as given; Real is where it led when refused.
	Path, Real string
}

func (e *EscapeError) Error() string {
	return fmt.Sprintf("%s leads outside the workspace (to %s, through a symbolic link, or a folder on its way changed while it was opened), so it was not read. To read or change the file there, give that path itself, so that the permission check judges it by its own name", e.Path, e.Real)
}

// OpenRegular opens abs for reading as the package's OpenRegular does
// (regular files only, never waiting on a FIFO), jailed: a path inside a
// workspace folder opens through that folder's os.Root and never leaves it
// (an *EscapeError when it would).
func (w *Workspace) OpenRegular(abs string) (*os.File, fs.FileInfo, error) {
	return w.OpenRegularContext(context.Background(), abs)
}

// OpenRegularContext is OpenRegular for a call whose approved reads ctx
// carries (WithApprovedReads): a path that leads outside the workspace and
// was approved opens the approved file, and only that file (an
// *ApprovalChangedError when it is no longer what abs leads to).
func (w *Workspace) OpenRegularContext(ctx context.Context, abs string) (*os.File, fs.FileInfo, error) {
	if observe := readObserver.Load(); observe != nil {
		(*observe)(abs)
	}
	if folder, _ := w.folderHolding(abs); folder == "" {
		a, ok := approvedRead(ctx, abs)
		if !ok {
			return OpenRegular(abs)
		}
		f, err := openApproved(abs, a)
		return keepRegular(f, abs, err)
	}
	f, err := openJailed(ctx, w, abs, w.openBeneath, openApproved)
	return keepRegular(f, abs, err)
}

// OpenDir opens the folder abs for a search or a listing (Grep, Glob, LS
// and Tree walk what it returns, internal/ignore.WalkRoot), jailed as
// OpenRegularContext opens a file: a folder inside a workspace folder opens
// through that folder's os.Root and never leaves it (an *EscapeError when
// it would); one that leads outside, or lies outside every workspace
// folder, and whose reading ctx approves opens as approved (the approved
// folder itself, or an *ApprovalChangedError); any other folder outside
// every workspace folder (which the permission checker asked about) opens
// as given. The search stays beneath what is returned.
func (w *Workspace) OpenDir(ctx context.Context, abs string) (*os.Root, error) {
	if folder, _ := w.folderHolding(abs); folder == "" {
		if a, ok := approvedRead(ctx, abs); ok {
			return openApprovedDir(abs, a)
		}
		return os.OpenRoot(abs)
	}
	return openJailed(ctx, w, abs, func(folder, rel string) (*os.Root, error) {
		root, err := w.openFolder(folder)
		if err != nil {
			return nil, err
		}
		defer root.Close()
		return root.OpenRoot(rel)
	}, openApprovedDir)
}

// openJailed opens abs, which lies inside a workspace folder as written,
// with open (rel inside folder, never leaving it). A link on the way that
// leaves the folder as written may lead back inside another way (an
// absolute link to a place inside, which os.Root does not follow): the
// path is then judged by where it leads now, still opened through the
// folder holding that place. A path that leads outside every folder opens
// with approved when ctx approves reading it, and is refused otherwise.
func openJailed[T any](ctx context.Context, w *Workspace, abs string, open func(folder, rel string) (T, error), approved func(abs string, a ApprovedRead) (T, error)) (T, error) {
	var none T
	folder, rel := w.folderHolding(abs)
	f, err := open(folder, rel)
	// os.Root refuses a link leaving the folder as an escape, or, for the
	// last step of a folder's path, as a loop.
	if isEscape(err) || errors.Is(err, syscall.ELOOP) {
		real := RealPath(abs)
		f, err = none, &EscapeError{Path: abs, Real: real}
		if _, lerr := os.Lstat(real); errors.Is(lerr, fs.ErrNotExist) {
			// A dangling link: nothing to read, as for any missing file
			// (a change through it is judged by the write's own jail).
			err = &fs.PathError{Op: "open", Path: abs, Err: fs.ErrNotExist}
		}
		if inFolder, inRel := w.folderHolding(real); inFolder != "" {
			if f2, err2 := open(inFolder, inRel); err2 == nil {
				f, err = f2, nil
			} else if !isEscape(err2) {
				err = err2
			}
		} else if a, ok := approvedRead(ctx, abs); ok {
			// Outside every folder, and approved by where it leads.
			f, err = approved(abs, a)
		}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		pe.Path = abs
	}
	return f, err
}

// keepRegular finishes an open of abs: the path in errors is abs as given,
// and only a regular file is kept open.
func keepRegular(f *os.File, abs string, err error) (*os.File, fs.FileInfo, error) {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		pe.Path = abs
	}
	if err != nil {
		return nil, nil, err
	}
	st, err := pathutil.Regular(f, abs)
	if st != nil && st.IsDir() {
		return nil, st, &IsDirError{Path: abs}
	}
	if err != nil {
		return nil, st, err
	}
	return f, st, nil
}

// openBeneath opens rel inside folder for reading without leaving it.
func (w *Workspace) openBeneath(folder, rel string) (*os.File, error) {
	root, err := w.openFolder(folder)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return root.OpenFile(rel, pathutil.OpenReadFlags, 0)
}

// folderHolding returns the workspace folder (a root or an additional
// directory, as configured or with its links resolved, a root's as pinned)
// that abs lies in as written, the deepest when several do, and abs
// relative to it; "" when abs lies in none.
func (w *Workspace) folderHolding(abs string) (folder, rel string) {
	for _, c := range append(w.Folders(), w.RealFolders()...) {
		if pathutil.Within(c, abs) && len(c) > len(folder) {
			folder = c
		}
	}
	if folder == "" {
		return "", ""
	}
	rel, err := filepath.Rel(folder, abs)
	if err != nil {
		return "", ""
	}
	return folder, rel
}

// ReadRegular reads the regular file abs, opened jailed
// (Workspace.OpenRegularContext), into buf's storage (grown when too small;
// the result aliases buf), at most limit bytes: a file holding more is a
// *TooLargeError. Reading stops when ctx ends.
func (w *Workspace) ReadRegular(ctx context.Context, abs string, buf []byte, limit int64) ([]byte, error) {
	open := func(abs string) (*os.File, fs.FileInfo, error) { return w.OpenRegularContext(ctx, abs) }
	return readRegular(ctx, open, abs, buf, limit)
}

// readObserver, when set, is told of every file a workspace opens for
// reading (ObserveReads).
var readObserver atomic.Pointer[func(abs string)]

// ObserveReads has f told of every file any workspace opens for reading
// (contents and hashes; an editor's buffer is no read), until the
// returned stop is called: tests hold with it how often a call reads a
// file. One observer at a time.
func ObserveReads(f func(abs string)) (stop func()) {
	readObserver.Store(&f)
	return func() { readObserver.Store(nil) }
}
