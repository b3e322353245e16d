// Package pathutil holds the path questions several packages ask the same
// way: where a path really lands once symlinks are resolved, and whether
// it lies in a folder. The workspace's inside test, the permission
// checker and the batch scheduler must agree on them.
package pathutil

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// maxLinkHops bounds how many symlinks RealPath follows, as the kernel's
// ELOOP does.
const maxLinkHops = 40

// RealPath returns where p (absolute and clean) really leads: every symlink on the way
// is followed, including a dangling one, whose target is taken as the place
// (a repository can ship a link to a file that does not exist yet, and a
// write through it would create that file). The part of the path that does
// not exist is kept as written. A loop of links leaves the rest unresolved.
func RealPath(p string) string {
	p = filepath.Clean(p)
	if !filepath.IsAbs(p) {
		return p
	}
	// On Windows the walk starts at the volume's root (C:\ or
	// \\server\share\); elsewhere the volume is empty.
	vol := filepath.VolumeName(p)
	resolved := vol + string(filepath.Separator)
	rest := splitPath(p[len(vol):])
	hops := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, c)
		st, err := os.Lstat(next)
		if err != nil {
			// Missing (or unreadable): the rest cannot be links we could see.
			return filepath.Join(append([]string{next}, rest...)...)
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		target, err := os.Readlink(next)
		hops++
		if err != nil || hops > maxLinkHops {
			return filepath.Join(append([]string{next}, rest...)...)
		}
		if tvol := filepath.VolumeName(target); tvol != "" {
			vol, target = tvol, target[len(tvol):]
			resolved = vol + string(filepath.Separator)
		} else if filepath.IsAbs(target) || strings.HasPrefix(filepath.ToSlash(target), "/") {
			// Absolute, or on Windows rooted on the current volume.
			resolved = vol + string(filepath.Separator)
		}
		rest = append(splitPath(target), rest...)
	}
	return resolved
}

func splitPath(p string) []string {
	return strings.Split(filepath.ToSlash(p), "/")
}

// Within reports whether p is dir or lies below it. Both are absolute and
// clean; symlinks are not resolved (see RealPath).
func Within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// NotRegularError refuses to read or change something that is not a regular
// file: a FIFO, a device, a socket.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file; only regular files can be read or changed. Give the path of a regular file", e.Path, describeMode(e.Mode))
}

func describeMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m.IsDir():
		return "a directory"
	}
	return "a special file"
}

// OpenRegular opens name for reading, refusing (with a *NotRegularError)
// anything that is not a regular file. It never waits: O_NONBLOCK keeps
// the open of a FIFO from waiting for a writer (regular files ignore it).
// A hostile repository can hold a FIFO or a device under any name a tool
// reads (.gitignore, settings, .mcp.json), so every read of a workspace
// file goes through here.
func OpenRegular(name string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(name, OpenReadFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := Regular(f, name)
	if err != nil {
		return nil, st, err
	}
	return f, st, nil
}

// OpenReadFlags are the flags OpenRegular opens with, for openers that
// reach the file another way (through an os.Root).
const OpenReadFlags = os.O_RDONLY | syscall.O_NONBLOCK

// Regular returns the file information of f, opened from name, when it is
// a regular file; otherwise it closes f and refuses (a *NotRegularError,
// with the information).
func Regular(f *os.File, name string) (fs.FileInfo, error) {
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return st, &NotRegularError{Path: name, Mode: st.Mode()}
	}
	return st, nil
}

// ReadFile is os.ReadFile for files a workspace holds: regular files only
// (OpenRegular), at most limit bytes (an error past it).
func ReadFile(name string, limit int64) ([]byte, error) {
	f, _, err := OpenRegular(name)
	if err != nil {
		return nil, err
	}
	return readLimited(f, name, limit)
}

// readLimited reads f (opened from name) to its end, at most limit bytes,
// and closes it.
func readLimited(f *os.File, name string, limit int64) ([]byte, error) {
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s holds more than %d bytes, too much to read", name, limit)
	}
	return data, nil
}

// ErrLeadsOutside refuses a file that OpenRegularIn would reach only by
// leaving its folder.
var ErrLeadsOutside = errors.New("it leads outside its folder (through a symbolic link, or a folder on its way was replaced by one), so it was not read; replace the link with the file itself")

// OpenRegularIn is OpenRegular of rel inside the folder dir, opened through
// an os.Root on dir: no link or ".." on the way leaves dir, however the
// folders on the way change meanwhile. It is for files at fixed places in a
// workspace (.mcp.json, the plan file, memory notes), which a repository
// can turn into links to elsewhere.
func OpenRegularIn(dir, rel string) (*os.File, fs.FileInfo, error) {
	name := filepath.Join(dir, rel)
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, err
	}
	defer root.Close()
	f, err := root.OpenFile(rel, OpenReadFlags, 0)
	if err != nil {
		if strings.Contains(err.Error(), "path escapes from parent") {
			err = &fs.PathError{Op: "open", Path: name, Err: ErrLeadsOutside}
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			pe.Path = name
		}
		return nil, nil, err
	}
	st, err := Regular(f, name)
	if err != nil {
		return nil, st, err
	}
	return f, st, nil
}

// ReadFileIn is ReadFile of rel inside the folder dir, opened as
// OpenRegularIn does.
func ReadFileIn(dir, rel string, limit int64) ([]byte, error) {
	f, _, err := OpenRegularIn(dir, rel)
	if err != nil {
		return nil, err
	}
	return readLimited(f, filepath.Join(dir, rel), limit)
}

// SelfExe is the path that starts this very program again (for its hidden
// helper modes: the jail, the reaper, the watchdog): /proc/self/exe, which
// still runs it once the file was replaced (an upgrade while the server
// runs) or removed, else os.Executable. "" when neither is known. It is
// found once, when first asked: not on a start's path unless a helper runs.
var SelfExe = sync.OnceValue(selfExe)

func selfExe() string {
	const self = "/proc/self/exe"
	if _, err := os.Stat(self); err == nil {
		return self
	}
	if exe, err := os.Executable(); err == nil {
		return exe
	}
	return ""
}
