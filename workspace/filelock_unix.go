//go:build unix

package workspace

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockFile takes f's exclusive advisory lock, waiting for another
// process's; the lock ends with unlockFile or when f is closed.
func lockFile(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			return err
		}
	}
}

func unlockFile(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_UN) }
