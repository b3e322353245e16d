package workspace

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// WriteFileAtomic writes data to path so that readers see either the old or
// the new content, never a mix: a temporary file in the same folder, synced,
// then renamed over the target. A symlink's target is written and the link
// kept; an existing file's mode, owner and extended attributes are kept
// (as far as this process may give them); a new file gets 0644 and its parent
// folders are created; anything but a writable regular file is refused.
//
// It is for toolhost's own files (settings, notes). Changes of the user's
// files go through Workspace.WriteFile, which also keeps them in the jail.
func WriteFileAtomic(path string, data []byte) error {
	return writeAtomic(nil, RealPath(path), path, data)
}

// WriteFileIn is WriteFileAtomic of rel inside the folder dir, through an
// os.Root on dir: the write never lands outside dir, however the folders on
// the way change meanwhile (toolhost's own files inside a workspace, such
// as memory notes, which a repository can turn into links to elsewhere).
func WriteFileIn(dir, rel string, data []byte) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	err = writeAtomic(root, rel, filepath.Join(dir, rel), data)
	if isEscape(err) {
		return fmt.Errorf("%s leads outside %s (through a symbolic link, or a folder on its way was replaced by one), so nothing was written; replace the link with a folder", filepath.Join(dir, rel), dir)
	}
	return err
}

// fileSystem is the part of os.Root a write needs; plainFS is the same on
// the whole file system, for writes outside every workspace folder.
type fileSystem interface {
	Lstat(name string) (fs.FileInfo, error)
	MkdirAll(name string, perm fs.FileMode) error
	OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error)
	Rename(oldname, newname string) error
	Remove(name string) error
}

type plainFS struct{}

func (plainFS) Lstat(name string) (fs.FileInfo, error)       { return os.Lstat(name) }
func (plainFS) MkdirAll(name string, perm fs.FileMode) error { return os.MkdirAll(name, perm) }
func (plainFS) Rename(oldname, newname string) error         { return os.Rename(oldname, newname) }
func (plainFS) Remove(name string) error                     { return os.Remove(name) }
func (plainFS) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}

// tempPrefix starts the name of every temporary file a write makes, so that
// cleaning up never takes a user's file for one (see CleanStaleTemps).
const tempPrefix = ".toolhost-tmp-"

// writeAtomic writes data to name, a path of root (an absolute path when
// root is nil), through a temporary file renamed in place. shown is the path
// as the caller gave it, for messages.
func writeAtomic(root *os.Root, name, shown string, data []byte) error {
	var fsys fileSystem = plainFS{}
	base := ""
	if root != nil {
		fsys, base = root, root.Name()
	}
	mode := fs.FileMode(0o644)
	var replaced fs.FileInfo
	st, err := fsys.Lstat(name)
	switch {
	case err == nil && st.Mode()&fs.ModeSymlink != 0:
		// RealPath resolved every link; one here appeared since.
		return fmt.Errorf("%s changed while it was being written (it became a symbolic link), so nothing was written; try again", shown)
	case err == nil:
		if err := writableTarget(shown, st); err != nil {
			return err
		}
		mode, replaced = st.Mode().Perm(), st
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("look at %s before writing it: %w", shown, err)
	}
	dir := filepath.Dir(name)
	if err := fsys.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create the folder of %s: %w", shown, err)
	}
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(dir, tempPrefix+hex.EncodeToString(rnd[:])+"-"+filepath.Base(name))
	pending.record(filepath.Join(base, tmp))
	f, err := fsys.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("create a temporary file next to %s: %w", shown, err)
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			fsys.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", shown, err)
	}
	if replaced != nil {
		keepOwnerAndAttrs(fsys, name, replaced, f)
	}
	// After the owner: a change of owner clears set-id bits.
	if err := f.Chmod(mode); err != nil {
		return fmt.Errorf("set the mode of %s: %w", shown, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", shown, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", shown, err)
	}
	if err := renameReplacing(fsys, tmp, name); err != nil {
		return fmt.Errorf("put the new content of %s in place: %w", shown, err)
	}
	ok = true
	return nil
}

// isTempName reports a name writeAtomic makes.
func isTempName(name string) bool { return strings.HasPrefix(filepath.Base(name), tempPrefix) }
