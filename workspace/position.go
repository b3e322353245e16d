package workspace

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Position encodings an LSP client and server can agree on
// (general.positionEncodings, LSP 3.17).
const (
	// EncodingUTF16 counts UTF-16 code units: the LSP default, and what every
	// client supports.
	EncodingUTF16 = "utf-16"
	// EncodingUTF8 counts bytes.
	EncodingUTF8 = "utf-8"
)

// ChoosePositionEncoding picks the encoding for a client that offers the
// given general.positionEncodings: UTF-8 when offered (no conversion
// needed), UTF-16 otherwise. It sets it on the workspace and returns it, for
// the initialize result's capabilities.positionEncoding.
func (w *Workspace) ChoosePositionEncoding(offered []string) string {
	enc := EncodingUTF16
	for _, o := range offered {
		if strings.EqualFold(o, EncodingUTF8) {
			enc = EncodingUTF8
		}
	}
	_ = w.SetPositionEncoding(enc)
	return enc
}

// SetPositionEncoding sets the negotiated position encoding, "utf-16" or
// "utf-8". Positions in didChange ranges and in edits sent to the editor use it.
func (w *Workspace) SetPositionEncoding(enc string) error {
	switch strings.ToLower(enc) {
	case EncodingUTF16:
		enc = EncodingUTF16
	case EncodingUTF8:
		enc = EncodingUTF8
	default:
		return fmt.Errorf("unsupported position encoding %q: use utf-16 or utf-8", enc)
	}
	w.docs.mu.Lock()
	w.docs.encoding = enc
	w.docs.mu.Unlock()
	return nil
}

// PositionEncoding returns the negotiated position encoding.
func (w *Workspace) PositionEncoding() string {
	w.docs.mu.RLock()
	defer w.docs.mu.RUnlock()
	if w.docs.encoding == "" {
		return EncodingUTF16
	}
	return w.docs.encoding
}

// lineIndex maps byte offsets of a text to LSP positions and back.
type lineIndex struct {
	text string
	// starts are the byte offsets at which lines begin; starts[0] == 0.
	starts []int
	utf8   bool
}

func newLineIndex(text, encoding string) *lineIndex {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &lineIndex{text: text, starts: starts, utf8: encoding == EncodingUTF8}
}

// lineEnd is the byte offset where line l's content ends (before "\r\n" or "\n").
func (x *lineIndex) lineEnd(l int) int {
	end := len(x.text)
	if l+1 < len(x.starts) {
		end = x.starts[l+1] - 1
		if end > x.starts[l] && x.text[end-1] == '\r' {
			end--
		}
	}
	return end
}

// position converts a byte offset (at a rune boundary) to a position.
func (x *lineIndex) position(off int) Position {
	l := sort.Search(len(x.starts), func(i int) bool { return x.starts[i] > off }) - 1
	seg := x.text[x.starts[l]:off]
	return Position{Line: uint32(l), Character: uint32(x.units(seg))}
}

// units is the length of s in the encoding.
func (x *lineIndex) units(s string) int {
	if x.utf8 {
		return len(s)
	}
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// offset converts a position to a byte offset. As LSP asks, a line past the
// end means the end of the text and a character past the line's end means the
// line's end; a position inside a character (half a surrogate pair, the middle
// of a UTF-8 sequence) moves to the character's start.
func (x *lineIndex) offset(p Position) int {
	if int(p.Line) >= len(x.starts) {
		return len(x.text)
	}
	off, _ := charOffset(x.text, x.starts[p.Line], x.lineEnd(int(p.Line)), int(p.Character), x.utf8)
	return off
}

// offsetOf is lineIndex.offset without an index: it finds the position's
// line with a scan for line breaks up to it, so one change of a large
// document (a didChange) costs no index of all its lines.
func offsetOf(text string, p Position, encoding string) int {
	c := offsetCursor{text: text, utf8: encoding == EncodingUTF8}
	off, _ := c.offset(p)
	return off
}

// offsetCursor converts positions asked in increasing order to byte
// offsets by scanning for line breaks on from the last one asked, so the
// positions of many changes of one text cost one scan of it.
type offsetCursor struct {
	text string
	utf8 bool
	// line is the line last reached and lineStart its offset.
	line      uint32
	lineStart int
}

// offset is lineIndex.offset, and whether the position named a place in
// the text as it is (false when it was past the end of its line or of the
// text, or inside a character); a position on a line before the last one
// asked starts the scan again from the top.
func (c *offsetCursor) offset(p Position) (int, bool) {
	if p.Line < c.line {
		c.line, c.lineStart = 0, 0
	}
	for c.line < p.Line {
		i := strings.IndexByte(c.text[c.lineStart:], '\n')
		if i < 0 {
			return len(c.text), false
		}
		c.lineStart += i + 1
		c.line++
	}
	start, end := c.lineStart, len(c.text)
	if i := strings.IndexByte(c.text[start:], '\n'); i >= 0 {
		end = start + i
		if end > start && c.text[end-1] == '\r' {
			end--
		}
	}
	return charOffset(c.text, start, end, int(p.Character), c.utf8)
}

// charOffset is the byte offset of character want (in the encoding's units)
// of the line text[start:end], clamped to the line's end and moved to the
// start of a character it falls inside; exact is false when it was either.
func charOffset(text string, start, end, want int, utf8Units bool) (off int, exact bool) {
	n := 0
	for i := start; i < end; {
		if n >= want {
			return i, true
		}
		r, size := utf8.DecodeRuneInString(text[i:end])
		u := size
		if !utf8Units {
			u = 1
			if r >= 0x10000 {
				u = 2
			}
		}
		if n+u > want {
			return i, false
		}
		n += u
		i += size
	}
	return end, n == want
}
