package workspace

import (
	"os"

	"golang.org/x/sys/windows"
)

// lockFile takes f's exclusive lock (its first byte, which need not
// exist), waiting for another process's; the lock ends with unlockFile or
// when f is closed.
func lockFile(f *os.File) error {
	var ol windows.Overlapped
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ol)
}

func unlockFile(f *os.File) error {
	var ol windows.Overlapped
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &ol)
}
