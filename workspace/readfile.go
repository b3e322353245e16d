package workspace

import (
	"context"
	"fmt"
	"github.com/toolhost/toolhost/internal/hugemem"
	"github.com/toolhost/toolhost/internal/pathutil"
	"io"
	"io/fs"
	"os"
)

// Reading files the user's workspace holds, whatever they are.
//
// A path can name a FIFO (opening it for reading waits for a writer, reading
// it waits for data), a device (/dev/zero never ends and reports size 0), a
// socket. Files are therefore opened without blocking (O_NONBLOCK, which
// regular files ignore) and refused unless they are regular files; sizes are
// judged by the bytes actually read, never by what Stat reports (a file
// can grow while it is read, and /proc files report 0); and reading stops
// when the context ends.

// ReadFileMax is the largest file ReadFile and ReadFileInto load: past it a
// read fails with a *TooLargeError rather than filling memory.
const ReadFileMax = 1 << 30

// TooLargeError says a file holds more bytes than a read may load.
type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s holds more than %d MB, too much to load. Search it with Grep, or show parts with Bash (head, tail, sed -n)", e.Path, e.Limit>>20)
}

// OpenRegular opens abs for reading, refusing (with a *NotRegularError)
// anything that is not a regular file, without ever waiting on a FIFO
// (pathutil.OpenRegular); a folder is an *IsDirError.
func OpenRegular(abs string) (*os.File, fs.FileInfo, error) {
	f, st, err := pathutil.OpenRegular(abs)
	if st != nil && st.IsDir() {
		return nil, st, &IsDirError{Path: abs}
	}
	return f, st, err
}

// readRegular reads the regular file abs, opened with open, into buf's
// storage (grown when too small; the result aliases buf), at most limit
// bytes: a file holding more is a *TooLargeError. Reading stops when ctx
// ends.
func readRegular(ctx context.Context, open func(string) (*os.File, fs.FileInfo, error), abs string, buf []byte, limit int64) ([]byte, error) {
	f, st, err := open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Mode().IsRegular() && st.Size() > limit {
		// Refused before reading: the size of a regular file is known
		// (one that grows while read is caught below).
		return nil, &TooLargeError{Path: abs, Limit: limit}
	}
	buf = buf[:0]
	if want := min(st.Size(), limit) + 512; int64(cap(buf)) < want {
		// A file of megabytes (the 45 MB file of an Edit) is read into
		// huge pages where the system gives them: a fresh server would
		// otherwise fault in each of its 4 KB pages.
		buf = hugemem.Bytes(int(want))[:0]
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		room := buf[len(buf):cap(buf)]
		if over := int64(len(buf)) + int64(len(room)) - (limit + 1); over > 0 {
			room = room[:int64(len(room))-over]
		}
		n, err := f.Read(room)
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, &TooLargeError{Path: abs, Limit: limit}
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
