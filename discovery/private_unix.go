//go:build unix

package discovery

import (
	"fmt"
	"os"
	"syscall"
)

// makePrivate narrows path to the user alone: mode 0700 for a folder,
// 0600 for a file.
func makePrivate(path string, dir bool) error {
	mode := os.FileMode(0o600)
	if dir {
		mode = 0o700
	}
	return os.Chmod(path, mode)
}

// userOnly refuses a discovery file that other users can read or write,
// or that another user owns.
func userOnly(path string, st os.FileInfo) error {
	if st.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%s can be read or written by other users (mode %v); remove it, toolhost writes its session files with mode 0600", path, st.Mode().Perm())
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Getuid() {
		return fmt.Errorf("%s belongs to another user; remove it", path)
	}
	return nil
}
