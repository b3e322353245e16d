package workspace

import (
	"os"

	"golang.org/x/sys/windows"
)

// openPendingList opens this process's list of pending temporary files for
// appending, creating or emptying it. It stays open while the process runs;
// os.OpenFile would not share deletion, so the list and its folder could
// not be deleted (a user clearing the cache folder, a test's temporary
// folder) until the process ends. FILE_SHARE_DELETE lets them go as on
// Unix, where an open file can be unlinked.
func openPendingList(path string) (*os.File, error) {
	name, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	h, err := windows.CreateFile(name, windows.FILE_APPEND_DATA|windows.SYNCHRONIZE,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, windows.CREATE_ALWAYS, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}
