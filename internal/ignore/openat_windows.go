package ignore

import (
	"errors"
	"os"
	"path/filepath"
	"time"
)

// errLinkHere is openAt's refusal of a link or junction, as O_NOFOLLOW's
// ELOOP is on Unix.
var errLinkHere = errors.New("is a link or junction: not followed")

// errWrongKind: a folder where a file was expected, or the other way.
var errWrongKind = errors.New("not the kind of entry expected (a folder or a file)")

// openAt opens name in the folder dir without following a link or a
// junction, as a folder when wantDir is set. Windows has no openat: the
// name is joined to the folder's path, checked with Lstat, opened, and the
// opened file must be the one checked (a swap in between is refused).
// label is the Unix variant's; the file is named by its full path here.
func openAt(dir *os.File, name, _ string, wantDir bool) (*os.File, error) {
	full := filepath.Join(dir.Name(), name)
	before, err := os.Lstat(full)
	if err != nil {
		return nil, err
	}
	if before.Mode()&(os.ModeSymlink|os.ModeIrregular) != 0 {
		return nil, errLinkHere
	}
	if wantDir != before.IsDir() {
		return nil, errWrongKind
	}
	f, err := os.Open(full)
	if err != nil {
		return nil, err
	}
	after, err := f.Stat()
	if err != nil || !os.SameFile(before, after) {
		f.Close()
		return nil, errLinkHere
	}
	return f, nil
}

// modTimeAt stats name in the folder dir without following a link.
func modTimeAt(dir *os.File, name string) (time.Time, error) {
	info, err := os.Lstat(filepath.Join(dir.Name(), name))
	if err != nil {
		return time.Time{}, err
	}
	return info.ModTime(), nil
}

// goneOrLink reports an openAt error of an entry that is gone, is now a
// link, or is no longer the kind it was: not entered, and not unreadable.
func goneOrLink(err error) bool {
	return errors.Is(err, os.ErrNotExist) || errors.Is(err, errLinkHere) || errors.Is(err, errWrongKind)
}
