//go:build unix

package workspace

import "os"

// openPendingList opens this process's list of pending temporary files for
// appending, creating or emptying it, readable by its owner only.
func openPendingList(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600)
}
