package settings

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// MaxFileBytes caps a settings file (and .mcp.json). Real ones are a few
// kilobytes; a bigger one is a mistake or a trap.
const MaxFileBytes = 4 << 20

// ReadFile reads a settings file of the workspace, which may be hostile: a
// named pipe (reading it would block the server), a device or a link to
// one, or a huge file are refused with an error saying what the path is.
// A missing file is fs.ErrNotExist.
func ReadFile(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s); it is not read", path, st.Mode().Type())
	}
	if st.Size() > MaxFileBytes {
		return nil, fmt.Errorf("%s is %d bytes, more than a settings file can be (%d); it is not read", path, st.Size(), MaxFileBytes)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The file may have grown since the Stat.
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err == nil && len(b) > MaxFileBytes {
		err = errors.New(path + " grew past the settings file cap while it was read; it is not read")
	}
	return b, err
}
