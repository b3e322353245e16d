package main

import "io"

// pollableStdin returns stdin unchanged: Windows has no non-blocking pipe
// reads for Go's poller to use, and descriptor 0 is not a handle there.
func pollableStdin(stdin io.Reader) (r io.Reader, restore func()) { return stdin, func() {} }
