package tasks

import (
	"fmt"
	"io"
	"os"
	"sync"
	"unicode/utf8"
)

// Output is the combined output of a command, kept up to a cap: the first
// half of the cap and the most recent half, with a count of the bytes
// dropped between them, so a command that floods its output cannot exhaust
// memory. It is the io.Writer given to the process for both stdout and
// stderr; safe for concurrent use.
type Output struct {
	headCap, tailCap int

	mu sync.Mutex
	// head holds the first headCap bytes.
	head []byte
	// tail holds the latest bytes after head filled up; it is compacted to
	// tailCap bytes whenever it grows to twice that.
	tail []byte
	// total counts every byte written.
	total int64
	// spilled names the file head and tail were moved to once the task
	// ended (Spill); headLen and tailLen say how the file splits. A
	// finished task's output then takes no memory: a session that ran
	// hundreds of chatty tasks holds none of their output.
	spilled          string
	headLen, tailLen int
	// discarded: the session ended; nothing more is kept or spilled.
	discarded bool
}

// spillMinBytes is the least output Spill moves to a file: smaller output
// costs less in memory than a file does.
const spillMinBytes = 64 << 10

// Spill moves the kept output of an ended task to a new file in dir, when
// there is enough of it to be worth a file; the output reads as before,
// from the file. Output written later (a process the task left behind) is
// counted, not kept.
func (o *Output) Spill(dir string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	tail := o.tail
	if len(tail) > o.tailCap {
		tail = tail[len(tail)-o.tailCap:]
	}
	if o.spilled != "" || o.discarded || len(o.head)+len(tail) < spillMinBytes {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "task-*.out")
	if err != nil {
		return err
	}
	_, err = f.Write(o.head)
	if err == nil {
		_, err = f.Write(tail)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	o.spilled, o.headLen, o.tailLen = f.Name(), len(o.head), len(tail)
	o.head, o.tail = nil, nil
	return nil
}

// Discard removes the file Spill made, if any; the output is empty then.
func (o *Output) Discard() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.discarded = true
	if o.spilled != "" {
		_ = os.Remove(o.spilled)
		o.spilled, o.headLen, o.tailLen = "", 0, 0
	}
}

// kept returns head and tail, read back from the file when spilled (for
// the time of one read; a file gone returns nothing). o.mu is held.
func (o *Output) kept() (head, tail []byte) {
	if o.spilled == "" {
		return o.head, o.tail
	}
	f, err := os.Open(o.spilled)
	if err != nil {
		return nil, nil
	}
	defer f.Close()
	buf := make([]byte, o.headLen+o.tailLen)
	n, _ := io.ReadFull(f, buf)
	buf = buf[:n]
	split := min(o.headLen, len(buf))
	return buf[:split], buf[split:]
}

// NewOutput returns an Output keeping at most capBytes bytes.
func NewOutput(capBytes int) *Output {
	capBytes = max(capBytes, 2)
	return &Output{headCap: capBytes / 2, tailCap: capBytes - capBytes/2}
}

// Write keeps p within the cap. It never fails.
func (o *Output) Write(p []byte) (int, error) {
	n := len(p)
	o.mu.Lock()
	defer o.mu.Unlock()
	o.total += int64(n)
	if o.spilled != "" {
		return n, nil
	}
	if room := o.headCap - len(o.head); room > 0 {
		take := min(room, len(p))
		o.head = append(o.head, p[:take]...)
		p = p[take:]
	}
	if len(p) == 0 {
		return n, nil
	}
	if len(p) >= o.tailCap {
		o.tail = append(o.tail[:0], p[len(p)-o.tailCap:]...)
		return n, nil
	}
	o.tail = append(o.tail, p...)
	if len(o.tail) >= 2*o.tailCap {
		keep := o.tail[len(o.tail)-o.tailCap:]
		o.tail = append(o.tail[:0], keep...)
	}
	return n, nil
}

// Total is the number of bytes written so far, kept or not.
func (o *Output) Total() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.total
}

// Tail returns up to the last n bytes written (for progress reports).
func (o *Output) Tail(n int) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	head, tail := o.kept()
	all := head
	if len(tail) > 0 {
		all = tail
	}
	if len(all) > n {
		all = all[len(all)-n:]
		for len(all) > 0 && !utf8.RuneStart(all[0]) {
			all = all[1:]
		}
	}
	return string(all)
}

// Render returns the output shortened to about maxBytes: when more was
// written, the beginning and the end with a note of how much was cut
// between them.
func (o *Output) Render(maxBytes int) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	head, tail := o.kept()
	if len(tail) > o.tailCap {
		tail = tail[len(tail)-o.tailCap:]
	}
	kept := int64(len(head) + len(tail))
	if kept == o.total && len(head)+len(tail) <= maxBytes {
		return string(head) + string(tail)
	}
	// Join head and tail, then keep maxBytes/2 of each end.
	half := max(maxBytes/2, 1)
	first := head
	if len(first) > half {
		first = cutEnd(first, half)
	}
	last := tail
	if len(last) == 0 && len(head) > len(first) {
		last = head[len(first):]
	}
	if len(last) > half {
		last = cutStart(last, half)
	}
	cut := o.total - int64(len(first)) - int64(len(last))
	if cut <= 0 {
		return string(first) + string(last)
	}
	return fmt.Sprintf("%s\n\n[… %d bytes of output cut here; the beginning and the end are shown …]\n\n%s", first, cut, last)
}

// cutEnd returns the first n bytes of b, not splitting a character.
func cutEnd(b []byte, n int) []byte {
	for n > 0 && n < len(b) && !utf8.RuneStart(b[n]) {
		n--
	}
	return b[:n]
}

// cutStart returns the last n bytes of b, not splitting a character.
func cutStart(b []byte, n int) []byte {
	i := len(b) - n
	for i < len(b) && !utf8.RuneStart(b[i]) {
		i++
	}
	return b[i:]
}
