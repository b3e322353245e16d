package rpcfault

import (
	"bufio"
	"bytes"
	"errors"

	"github.com/toolhost/toolhost/internal/hugemem"
)

// ReadLine reads up to and including the next newline, or to the end of
// the input (err then says why it ended), and reports the line's size. A
// line within max bytes is returned whole; of a longer one only the
// beginning is kept (at most max bytes, at most one of the reader's
// buffers), so that a line over a cap is read past without being held.
// Pieces are joined once at the end, rather than grown by doubling, which
// would allocate up to twice the cap.
func ReadLine(r *bufio.Reader, max int) (line []byte, size int, err error) {
	var pieces [][]byte
	for {
		chunk, err := r.ReadSlice('\n')
		switch {
		case size+len(chunk) <= max:
			pieces = append(pieces, append([]byte(nil), chunk...))
		case len(pieces) == 0: // the first piece is over the cap
			pieces = append(pieces, append([]byte(nil), chunk[:max]...))
		default: // over the cap: only the beginning is kept
			pieces = pieces[:1]
		}
		size += len(chunk)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		switch total := min(size, max); {
		case len(pieces) == 1:
			return pieces[0], size, err
		case total >= hugemem.Min:
			// A line of megabytes (an MCP Write's content) is joined into
			// huge pages: 4 KB pages touched for the first time cost more
			// than the copy.
			line = hugemem.Bytes(total)[:0]
			for _, p := range pieces {
				line = append(line, p...)
			}
			return line, size, err
		}
		return bytes.Join(pieces, nil), size, err
	}
}
