package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolhost/toolhost/internal/pathutil"
)

// The jail: every change the workspace writes lands inside a workspace
// folder, judged at the moment of the write through the real file system,
// not by a check made before it.
//
// A path is first resolved to where it really leads (RealPath, which follows
// dangling links to their targets too), and the workspace folder holding
// that place is picked. The write itself then goes through an os.Root opened
// on that folder: each step (make the parent folders, create the temporary
// file, rename it over the target) resolves the path inside the folder and
// refuses to leave it, so a folder swapped for a link to elsewhere between
// the check and the write makes the write fail instead of landing outside.
//
// Writing to the resolved place means a Write or Edit through a symlink
// changes the link's target and keeps the link.

// RealPath returns where p (absolute) really leads: every symlink on the
// way followed, a dangling one to its target (internal/pathutil).
func RealPath(p string) string { return pathutil.RealPath(p) }

// OutsideError refuses a change whose path leads outside every workspace
// folder once links are followed.
type OutsideError struct {
	// Path is the path as given; Real is where it leads.
	Path, Real string
}

func (e *OutsideError) Error() string {
	if e.Real != e.Path {
		return fmt.Sprintf("%s leads to %s (through a symbolic link), which is outside the workspace; writes outside the workspace are refused. Write to a path inside the workspace instead", e.Path, e.Real)
	}
	return fmt.Sprintf("%s is outside the workspace; writes outside the workspace are refused. Write to a path inside the workspace instead", e.Path)
}

// NotRegularError refuses to read or change something that is not a
// regular file: a FIFO, a device, a socket (internal/pathutil).
type NotRegularError = pathutil.NotRegularError

// IsDirError refuses to write a file where a folder is.
type IsDirError struct {
	Path string
}

func (e *IsDirError) Error() string {
	return fmt.Sprintf("%s is a directory; give the path of a file", e.Path)
}

// ReadOnlyError refuses to change a file whose mode has no write permission
// for its owner.
type ReadOnlyError struct {
	Path string
	Mode fs.FileMode
}

func (e *ReadOnlyError) Error() string {
	return fmt.Sprintf("%s is read-only (mode %04o), so it was not changed. If it should change, ask the user to make it writable (chmod u+w)", e.Path, e.Mode.Perm())
}

// SetWritesOutsideAllowed sets permissions.allowWritesOutsideWorkspace:
// whether a change may land outside every workspace folder (the permission
// checker has asked the user then).
func (w *Workspace) SetWritesOutsideAllowed(allowed bool) {
	w.mu.Lock()
	w.outsideWrites = allowed
	w.mu.Unlock()
}

// place is where a change of a path lands: a workspace folder (real path)
// and the path inside it, or, for an allowed write outside, no folder.
type place struct {
	given, real string
	// root is the real path of the workspace folder holding real; "" when
	// the write is outside and allowed.
	root, rel string
}

// placeOf resolves abs to where a change of it would land and refuses what
// leads outside the workspace (unless such writes are allowed).
func (w *Workspace) placeOf(abs string) (place, error) {
	pl := place{given: abs, real: RealPath(abs)}
	w.mu.RLock()
	outsideOK := w.outsideWrites
	w.mu.RUnlock()
	for _, rf := range w.RealFolders() {
		if pathutil.Within(rf, pl.real) && len(rf) > len(pl.root) {
			pl.root = rf
		}
	}
	if pl.root == "" {
		if outsideOK {
			return pl, nil
		}
		return pl, &OutsideError{Path: abs, Real: pl.real}
	}
	rel, err := filepath.Rel(pl.root, pl.real)
	if err != nil {
		return pl, err
	}
	pl.rel = rel
	return pl, nil
}

// CheckWritable reports whether a change of abs could be made: the path
// leads inside the workspace (or outside writes are allowed), and what is
// there is absent or a writable regular file. The editor path calls it before
// sending an edit, so an edit the server would refuse is never sent.
func (w *Workspace) CheckWritable(abs string) error {
	pl, err := w.placeOf(abs)
	if err != nil {
		return err
	}
	st, err := os.Stat(pl.real)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return writableTarget(abs, st)
}

// writableTarget checks what a change would replace.
func writableTarget(abs string, st fs.FileInfo) error {
	switch {
	case st.IsDir():
		return &IsDirError{Path: abs}
	case !st.Mode().IsRegular():
		return &NotRegularError{Path: abs, Mode: st.Mode()}
	case st.Mode().Perm()&0o200 == 0:
		return &ReadOnlyError{Path: abs, Mode: st.Mode()}
	}
	return nil
}

// WriteFile writes data to abs atomically, inside the jail: the place abs
// leads to must lie in a workspace folder (or outside writes be allowed),
// and every step of the write stays inside that folder however the file
// system changes meanwhile. A symlink's target is written and the link kept;
// anything but a writable regular file is refused.
func (w *Workspace) WriteFile(abs string, data []byte) error {
	pl, err := w.placeOf(abs)
	if err != nil {
		return err
	}
	if pl.root == "" {
		return writeAtomic(nil, pl.real, abs, data)
	}
	root, err := w.openFolder(pl.root)
	if err != nil {
		return err
	}
	defer root.Close()
	err = writeAtomic(root, pl.rel, abs, data)
	if isEscape(err) {
		return fmt.Errorf("%s changed while it was being written (a folder on its way became a link leading outside the workspace), so nothing was written; check the folder and try again", abs)
	}
	return err
}

// isEscape reports an os.Root refusal to leave its folder.
func isEscape(err error) bool {
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
}

// Folders returns every folder inside the workspace: the roots (as
// opened), then permissions.additionalDirectories.
func (w *Workspace) Folders() []string {
	return append(w.Roots(), w.additional()...)
}

// additional returns permissions.additionalDirectories as given.
func (w *Workspace) additional() []string {
	w.mu.RLock()
	defer w.mu.RUnlock()
	out := make([]string, len(w.extra))
	for i, e := range w.extra {
		out[i] = e.given
	}
	return out
}
