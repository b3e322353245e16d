package workspace

import (
	"errors"
	"time"

	"golang.org/x/sys/windows"
)

// replaceAttempts bounds the renames tried while another process holds
// the target open without sharing deletion: 8 tries wait at most about a
// quarter of a second in all (1 ms, doubled each time).
const replaceAttempts = 8

// replaceWait pauses between two tries (a variable for tests, which close
// the other process's handle there instead).
var replaceWait = time.Sleep

// renameReplacing puts from in place of to. os.Rename is MoveFileEx with
// MOVEFILE_REPLACE_EXISTING on Windows, which fails while another process
// (the editor, a virus scanner, an indexer) has the target open without
// FILE_SHARE_DELETE; such holds are brief, so the rename is tried again a
// few times before the error is returned.
func renameReplacing(fsys fileSystem, from, to string) error {
	delay := time.Millisecond
	for attempt := 1; ; attempt++ {
		err := fsys.Rename(from, to)
		if err == nil || attempt == replaceAttempts || !heldOpen(err) {
			return err
		}
		replaceWait(delay)
		delay *= 2
	}
}

// heldOpen reports an error of a file another process holds open.
func heldOpen(err error) bool {
	return errors.Is(err, windows.ERROR_SHARING_VIOLATION) ||
		errors.Is(err, windows.ERROR_LOCK_VIOLATION) ||
		errors.Is(err, windows.ERROR_ACCESS_DENIED)
}
