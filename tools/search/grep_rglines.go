package search

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
)

// maxRgLine bounds one line of ripgrep's --json output held in memory. A
// matching line of a minified or generated file can be hundreds of
// megabytes, ripgrep's --max-columns does not apply to --json, and Grep
// shows only maxLineBytes of a line anyway: a longer message is read
// through, keeping its start (type and path) and its line number, and
// reported as an omitted line, as ripgrep's --max-columns does.
const maxRgLine = 8 << 20

// rgLine is one line of ripgrep's --json output.
type rgLine struct {
	// data is the line, or only its first maxRgLine bytes when long.
	data []byte
	long bool
	// size is the length of the whole line in bytes.
	size int64
	// lineNo is the line_number field of a long line (0 when not found).
	lineNo int
	// text measures the line itself within a long message: the message
	// also lists every submatch, so for a pattern matching everywhere it is
	// tens of times the line's size.
	text lineText
}

// linesKey opens the matched line's text in a match message.
var linesKey = []byte(`"lines":{"`)

// lineText finds a match message's "lines" value as it streams past and
// counts its bytes, without keeping them.
type lineText struct {
	// state: 0 looking for the field, 1 inside its string, 2 done.
	state int
	// base64 is set for a {"bytes": …} value (not UTF-8).
	base64 bool
	// escaped: the last byte seen inside the string was a backslash.
	escaped bool
	n       int64
}

// feed passes the next bytes of the message.
func (t *lineText) feed(p []byte) {
	if t.state == 0 {
		i := bytes.Index(p, linesKey)
		if i < 0 {
			return
		}
		rest := p[i+len(linesKey):]
		t.base64 = bytes.HasPrefix(rest, []byte(`bytes"`))
		q := bytes.IndexByte(rest, ':')
		if q < 0 || q+1 >= len(rest) || rest[q+1] != '"' {
			return
		}
		t.state, p = 1, rest[q+2:]
	}
	for t.state == 1 && len(p) > 0 {
		if t.escaped {
			// An escape stands for one byte of the line (\u… for one
			// character: close enough for a size).
			t.escaped, p = false, p[1:]
			continue
		}
		i := bytes.IndexAny(p, `"\`)
		if i < 0 {
			t.n += int64(len(p))
			return
		}
		t.n += int64(i)
		if p[i] == '"' {
			t.state = 2
			return
		}
		t.n++
		t.escaped, p = true, p[i+1:]
	}
}

// size is the line's size in bytes, 0 when the field was not found.
func (t *lineText) size() int64 {
	if t.state != 2 {
		return 0
	}
	if t.base64 {
		return t.n * 3 / 4
	}
	return t.n
}

var lineNumberKey = []byte(`"line_number":`)

// readRgLine reads the next line of r into buf's storage. It returns
// io.EOF once there is nothing left.
func readRgLine(r *bufio.Reader, buf []byte) (rgLine, error) {
	l := rgLine{data: buf[:0]}
	// tail holds the last bytes of a long line already read, so that the
	// line_number key is found even when it straddles two reads. The key
	// cannot occur inside a JSON string (its quotes would be escaped), so
	// its first occurrence is the field's.
	var tail []byte
	for {
		chunk, err := r.ReadSlice('\n')
		l.size += int64(len(chunk))
		if !l.long && len(l.data)+len(chunk) <= maxRgLine {
			l.data = append(l.data, chunk...)
		} else {
			if !l.long {
				l.long = true
				l.lineNo = findLineNumber(l.data)
				tail = append(tail, l.data[max(0, len(l.data)-64):]...)
				l.text.feed(l.data)
			}
			if l.text.state == 0 {
				// The key straddling the end of data and this chunk.
				l.text.feed(append(append([]byte(nil), tail...), chunk...))
			} else {
				l.text.feed(chunk)
			}
			if l.lineNo == 0 {
				window := append(tail, chunk...)
				l.lineNo = findLineNumber(window)
				tail = append(tail[:0], window[max(0, len(window)-64):]...)
			}
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && l.size > 0:
			return l, nil
		default:
			return l, err
		}
	}
}

// findLineNumber is the number after the first "line_number": key in b,
// 0 when there is none (or its digits are cut off).
func findLineNumber(b []byte) int {
	i := bytes.Index(b, lineNumberKey)
	if i < 0 {
		return 0
	}
	digits := b[i+len(lineNumberKey):]
	end := 0
	for end < len(digits) && digits[end] >= '0' && digits[end] <= '9' {
		end++
	}
	if end == len(digits) {
		return 0 // the number may go on in the next read
	}
	n, _ := strconv.Atoi(string(digits[:end]))
	return n
}

// rgPathPrefix reads the path of a match message from its start; the path
// comes first in ripgrep's --json messages.
var rgPathPrefix = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\{"type":"match","data":\{"path":(\{"(?:text|bytes)":"(?:[^"\\]|\\.)*"\})`)
})

// omittedMatch is the path and the line shown for a long match message.
func omittedMatch(l rgLine) (path string, text string, ok bool) {
	m := rgPathPrefix().FindSubmatch(l.data)
	if m == nil {
		return "", "", false
	}
	var p rgData
	if json.Unmarshal(m[1], &p) != nil {
		return "", "", false
	}
	size := l.text.size()
	if size == 0 {
		size = l.size
	}
	return p.String(), omittedLine(size), true
}

// omittedLine is what Grep shows for a matching line of size bytes longer
// than maxRgLine, whichever backend found it.
func omittedLine(size int64) string {
	return fmt.Sprintf("[Omitted long matching line: about %d MiB, more than Grep reads of one line]", max(1, size>>20))
}

// plainContent reports a content query that ripgrep answers in its plain
// output: every matching line on its own, so a line longer than maxRgLine
// is omitted by ripgrep itself. Multiline and only-matching queries need
// --json's submatches.
func plainContent(q *grepQuery) bool {
	return q.mode == ModeContent && !q.multiline && !q.onlyMatching
}

// rgOmittedLine reports whether k is one of ripgrep's stand-ins, under
// --max-columns, for a matching and a context line that is too long.
func rgOmittedLine(k string) bool {
	switch k {
	case "[Omitted long matching line]", "[Omitted long context line]":
		return true
	}
	return false
}

// parseRgText reads ripgrep's plain content output, --null --line-number
// --byte-offset: "path NUL line:offset:text" for a match, with "-" for a
// context line, into w. A line ripgrep omitted is shown with its size,
// which sizeAt reads from the file at the line's offset. It stops
// (stopped true) once the text w keeps exceeds budget bytes.
//
// It runs once per line of the output, which is every matching line of
// the tree: it allocates nothing for a line the window does not keep.
func parseRgText(r io.Reader, w *window, budget int64, sizeAt func(path string, offset int64) int64) (stopped bool, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	// long holds a record longer than br's buffer.
	var long []byte
	// pending holds what came before a newline in a path: a record is
	// read to the end of its line, and only the path can hold one.
	var pending []byte
	for {
		rec, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], rec...)
			for err == bufio.ErrBufferFull {
				rec, err = br.ReadSlice('\n')
				long = append(long, rec...)
			}
			rec = long
		}
		if len(rec) == 0 && err != nil {
			if err == io.EOF {
				return false, nil
			}
			return false, err
		}
		rec = bytes.TrimSuffix(rec, []byte("\n"))
		nul := bytes.IndexByte(rec, 0)
		if nul < 0 {
			// ripgrep's word on a binary file ("PATH: binary file
			// matches (…)") is no hit.
			if !bytes.Contains(rec, []byte(": binary file matches")) && !bytes.Contains(rec, []byte("WARNING: stopped searching binary file")) {
				pending = append(append(pending, rec...), '\n')
			}
			continue
		}
		path := rec[:nul]
		if len(pending) > 0 {
			path = append(pending, path...)
			pending = pending[:0]
		}
		num, off, text, match, ok := splitRgRecord(rec[nul+1:])
		if !ok {
			continue
		}
		if w.heldBytes > budget {
			return true, nil
		}
		if len(text) > 0 && text[0] == '[' && rgOmittedLine(string(text)) {
			if size := sizeAt(string(path), off); size > maxRgLine {
				if !match {
					continue // a long context line is left out
				}
				text = []byte(omittedLine(size))
			}
		}
		h := w.file(path)
		if match {
			h.count++
		}
		w.line(h, num, text, match)
	}
}

// splitRgRecord reads "line:offset:text" (a match) or "line-offset-text"
// (context).
func splitRgRecord(b []byte) (num int, off int64, text []byte, match, ok bool) {
	digits := func() (int64, bool) {
		var n int64
		end := 0
		for ; end < len(b) && b[end] >= '0' && b[end] <= '9'; end++ {
			if n > (math.MaxInt64-9)/10 {
				return 0, false
			}
			n = n*10 + int64(b[end]-'0')
		}
		if end == 0 || end == len(b) || b[end] != ':' && b[end] != '-' {
			return 0, false
		}
		match = b[end] == ':'
		b = b[end+1:]
		return n, true
	}
	n, ok1 := digits()
	off, ok2 := digits()
	return int(n), off, b, match, ok1 && ok2
}

// lineSizeAt is the size of the line starting at offset in the file path
// that q searched, read through the jail that rg was given (0 when it
// cannot be read).
func lineSizeAt(q *grepQuery, path string, offset int64) int64 {
	f := q.file
	if f == nil {
		rel, err := filepath.Rel(q.root, path)
		if err != nil || q.dir == nil {
			return 0
		}
		if f, err = q.dir.Open(rel); err != nil {
			return 0
		}
		defer f.Close()
	}
	r := bufio.NewReaderSize(io.NewSectionReader(f, offset, 1<<62), 1<<20)
	var n int64
	for {
		chunk, err := r.ReadSlice('\n')
		n += int64(len(chunk))
		switch err {
		case bufio.ErrBufferFull:
		case nil:
			return n - 1 // the newline
		default:
			return n
		}
	}
}
