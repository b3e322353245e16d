package rpcfault

import (
	"io"
	"os"
	"time"
)

// InputCloser returns what ends a read blocked on in: in itself when it is
// an io.Closer whose Close does that, nil otherwise. A file outside the
// runtime's poller — a blocking pipe, socket or terminal handed over as
// standard input, as editors and MCP clients start their servers — stays in
// its read(2) when closed, so a transport must neither count on closing it
// nor wait for its reader; the reader then ends with the process.
func InputCloser(in io.Reader) io.Closer {
	c, ok := in.(io.Closer)
	if !ok {
		return nil
	}
	if f, ok := in.(*os.File); ok && f.SetReadDeadline(time.Time{}) != nil {
		// os.ErrNoDeadline: not pollable.
		return nil
	}
	return c
}
