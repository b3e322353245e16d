//go:build unix

package rpcfault

import (
	"bytes"
	"io"
	"os"
	"syscall"
	"testing"
)

// TestInputCloser: only an input whose Close ends a blocked read is given
// back. A blocking pipe, as a client hands a server its standard input,
// is not: waiting for its reader after Close hung `toolhost serve` at exit
// under Node's vscode-jsonrpc client (test/node).
func TestInputCloser(t *testing.T) {
	polled, polledW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer polled.Close()
	defer polledW.Close()
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil {
		t.Fatal(err)
	}
	blocking := os.NewFile(uintptr(fds[0]), "blocking")
	defer blocking.Close()
	defer syscall.Close(fds[1])
	pr, pw := io.Pipe()
	defer pw.Close()

	for _, tt := range []struct {
		name string
		in   io.Reader
		want bool
	}{
		{"a pipe in the runtime's poller", polled, true},
		{"an io.Pipe", pr, true},
		{"a blocking pipe (a server's standard input)", blocking, false},
		{"a reader that cannot be closed", bytes.NewReader(nil), false},
	} {
		if got := InputCloser(tt.in) != nil; got != tt.want {
			t.Errorf("%s: closer given = %v, want %v", tt.name, got, tt.want)
		}
	}
}
