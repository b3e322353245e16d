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
	// parked is the file head and tail were moved to once the task ended
	// (Park), "" while they are in memory; headLen and tailLen say how
	// much of each it holds.
	parked           string
	headLen, tailLen int
}

// Park moves the kept output of an ended task from memory to a new file
// in dir, so that a session that ran hundreds of tasks does not hold all
// their outputs: Render and Tail read it back. Writes after Park are
// counted but not kept. On failure the output stays in memory, trimmed to
// what it keeps.
func (o *Output) Park(dir string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.parked != "" {
		return nil
	}
	head, tail := o.head, o.tail
	if len(tail) > o.tailCap {
		tail = tail[len(tail)-o.tailCap:]
	}
	f, err := os.CreateTemp(dir, "task-*.out")
	if err == nil {
		_, err = f.Write(head)
		if err == nil {
			_, err = f.Write(tail)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(f.Name())
		}
	}
	if err != nil {
		// Appends left spare capacity behind; keep exactly the bytes.
		o.head, o.tail = append([]byte(nil), head...), append([]byte(nil), tail...)
		return err
	}
	o.parked, o.headLen, o.tailLen = f.Name(), len(head), len(tail)
	o.head, o.tail = nil, nil
	return nil
}

// retained is the output's bytes held in memory.
func (o *Output) retained() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return cap(o.head) + cap(o.tail)
}

// kept returns head and tail (trimmed to tailCap), from memory or read
// back from the parked file. Called with mu held.
func (o *Output) kept() (head, tail []byte) {
	if o.parked == "" {
		tail = o.tail
		if len(tail) > o.tailCap {
			tail = tail[len(tail)-o.tailCap:]
		}
		return o.head, tail
	}
	f, err := os.Open(o.parked)
	if err != nil {
		return []byte(fmt.Sprintf("[the output of this task was saved in %s and can no longer be read: %v]", o.parked, err)), nil
	}
	defer f.Close()
	buf := make([]byte, o.headLen+o.tailLen)
	n, _ := io.ReadFull(f, buf)
	buf = buf[:n]
	h := min(o.headLen, len(buf))
	return buf[:h], buf[h:]
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
	if o.parked != "" {
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
