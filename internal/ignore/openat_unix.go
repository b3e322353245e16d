//go:build unix

package ignore

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// openAt opens name in the folder dir without following a link (a link
// there fails with ELOOP), as a folder when wantDir is set; the file is
// named label. A FIFO is opened without blocking (pathutil.Regular then
// refuses it).
func openAt(dir *os.File, name, label string, wantDir bool) (*os.File, error) {
	flags := unix.O_RDONLY | unix.O_NONBLOCK
	if wantDir {
		flags = unix.O_RDONLY | unix.O_DIRECTORY
	}
	for {
		fd, err := unix.Openat(int(dir.Fd()), name, flags|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		return os.NewFile(uintptr(fd), label), nil
	}
}

// modTimeAt stats name in the folder dir without following a link.
func modTimeAt(dir *os.File, name string) (time.Time, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(int(dir.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return time.Time{}, err
	}
	return time.Unix(st.Mtim.Unix()), nil
}

// goneOrLink reports an openAt error of an entry that is gone, is now a
// link, or is no longer a folder: not entered, and not unreadable.
func goneOrLink(err error) bool {
	return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR)
}
