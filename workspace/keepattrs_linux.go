package workspace

import (
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// keepOwnerAndAttrs gives tmp, the new content of the file old describes,
// the owner and the extended attributes of the file it replaces: a write by
// rename makes a new file, which would otherwise belong to whoever runs
// toolhost (root in many containers, leaving the user a file they cannot
// edit) and lose the file's ACLs, SELinux label and user.* attributes.
// Best effort, as far as this process may: an owner it may not give or an
// attribute the file system refuses is left out, and the write goes on.
func keepOwnerAndAttrs(fsys fileSystem, name string, old fs.FileInfo, tmp *os.File) {
	if st, ok := old.Sys().(*syscall.Stat_t); ok && (int(st.Uid) != os.Geteuid() || int(st.Gid) != os.Getegid()) {
		_ = tmp.Chown(int(st.Uid), int(st.Gid))
	}
	orig, err := fsys.OpenFile(name, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return
	}
	defer orig.Close()
	for _, attr := range listAttrs(int(orig.Fd())) {
		if value, err := getAttr(int(orig.Fd()), attr); err == nil {
			_ = unix.Fsetxattr(int(tmp.Fd()), attr, value, 0)
		}
	}
}

// listAttrs is the names of the extended attributes of the open file fd.
func listAttrs(fd int) []string {
	size, err := unix.Flistxattr(fd, nil)
	if err != nil || size == 0 {
		return nil
	}
	buf := make([]byte, size)
	size, err = unix.Flistxattr(fd, buf)
	if err != nil {
		return nil
	}
	var names []string
	for start, i := 0, 0; i < size; i++ {
		if buf[i] == 0 {
			if i > start {
				names = append(names, string(buf[start:i]))
			}
			start = i + 1
		}
	}
	return names
}

// getAttr is the value of one extended attribute of the open file fd.
func getAttr(fd int, attr string) ([]byte, error) {
	size, err := unix.Fgetxattr(fd, attr, nil)
	if err != nil {
		return nil, err
	}
	value := make([]byte, size)
	size, err = unix.Fgetxattr(fd, attr, value)
	if err != nil {
		return nil, err // ERANGE: it grew meanwhile; leave it out
	}
	return value[:size], nil
}
