package rpcfault

import (
	"bufio"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadLine: lines within the cap come whole, however the input
// arrives; of a longer line only its beginning is kept, and the next line
// is read after it.
func TestReadLine(t *testing.T) {
	const max = 10
	long := strings.Repeat("y", 100) + "\n"
	input := "short\n" + "exactly10\n" + long + "last"
	type got struct {
		line string
		size int
		err  error
	}
	want := []got{{"short\n", 6, nil}, {"exactly10\n", 10, nil}, {"", 101, nil}, {"last", 4, io.EOF}}
	for _, arrival := range []func(io.Reader) io.Reader{func(r io.Reader) io.Reader { return r }, iotest.OneByteReader, iotest.HalfReader} {
		r := bufio.NewReaderSize(arrival(strings.NewReader(input)), 16)
		for i, w := range want {
			line, size, err := ReadLine(r, max)
			if size != w.size || err != w.err {
				t.Fatalf("line %d: size %d err %v, want %d %v", i, size, err, w.size, w.err)
			}
			switch {
			case size > max && (len(line) == 0 || len(line) > max || !strings.HasPrefix(long, string(line))):
				t.Errorf("line %d over the cap kept %q, want its beginning, at most %d bytes", i, line, max)
			case size <= max && string(line) != w.line:
				t.Errorf("line %d = %q, want %q", i, line, w.line)
			}
		}
	}
}
