package workspace

import (
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/toolhost/toolhost/internal/udiff"
)

// charDiffSize is the size (old and new bytes together) of a changed block
// of lines past which minimalEdits sends it as one replacement rather than
// diffing its characters.
const charDiffSize = 64 << 10

// byteEdit replaces old[start:end] with text.
type byteEdit struct {
	start, end int
	text       string
}

// minimalEdits returns small, ordered, non-overlapping edits that turn old
// into new, from changes, the line diff of the two (udiff.Changes): a
// character diff inside each changed block keeps edits to the characters
// that changed, so the editor's undo, cursors and markers outside them stay
// put. go-diff does the diffing rather than a hand-written LCS. A block past
// charDiffSize is sent as one replacement: a minimal edit of a large block
// that changed everywhere is not worth the diff's time.
func minimalEdits(old, new string, changes []udiff.Change) []byteEdit {
	dmp := diffmatchpatch.New()
	var edits []byteEdit
	for _, c := range changes {
		del, ins := old[c.OldStart:c.OldEnd], new[c.NewStart:c.NewEnd]
		if len(del)+len(ins) > charDiffSize {
			edits = append(edits, byteEdit{start: c.OldStart, end: c.OldEnd, text: ins})
			continue
		}
		edits = append(edits, charEdits(dmp, c.OldStart, del, ins)...)
	}
	return keepLineBreaksWhole(old, edits)
}

// keepLineBreaksWhole widens edits that start or end between the "\r" and
// "\n" of a CRLF: LSP positions cannot point there (editors clamp them to
// the line's end), so such an edit would land in the wrong place. Edits the
// widening makes touch are merged.
func keepLineBreaksWhole(old string, edits []byteEdit) []byteEdit {
	splitsCRLF := func(i int) bool { return i > 0 && i < len(old) && old[i-1] == '\r' && old[i] == '\n' }
	out := edits[:0]
	for _, e := range edits {
		if splitsCRLF(e.start) {
			e.start--
			e.text = "\r" + e.text
		}
		if splitsCRLF(e.end) {
			e.end++
			e.text += "\n"
		}
		if n := len(out); n > 0 && e.start <= out[n-1].end {
			prev := &out[n-1]
			prev.text += old[prev.end:e.start] + e.text
			prev.end = e.end
			continue
		}
		out = append(out, e)
	}
	return out
}

// charEdits diffs one changed block by characters; base is the block's byte
// offset in the old text.
func charEdits(dmp *diffmatchpatch.DiffMatchPatch, base int, del, ins string) []byteEdit {
	if del == "" || ins == "" {
		return []byteEdit{{start: base, end: base + len(del), text: ins}}
	}
	diffs := dmp.DiffCleanupSemantic(dmp.DiffMain(del, ins, false))
	var edits []byteEdit
	off := base
	for i := 0; i < len(diffs); {
		if diffs[i].Type == diffmatchpatch.DiffEqual {
			off += len(diffs[i].Text)
			i++
			continue
		}
		e := byteEdit{start: off, end: off}
		for ; i < len(diffs) && diffs[i].Type != diffmatchpatch.DiffEqual; i++ {
			if diffs[i].Type == diffmatchpatch.DiffDelete {
				e.end += len(diffs[i].Text)
			} else {
				e.text += diffs[i].Text
			}
		}
		off = e.end
		edits = append(edits, e)
	}
	return edits
}

// textEdits converts byte edits of old into LSP edits in the encoding.
func textEdits(old string, edits []byteEdit, encoding, annotation string) []AnnotatedTextEdit {
	x := lineCursor{text: old, utf8: encoding == EncodingUTF8}
	out := make([]AnnotatedTextEdit, 0, len(edits))
	for _, e := range edits {
		out = append(out, AnnotatedTextEdit{
			Range:        Range{Start: x.position(e.start), End: x.position(e.end)},
			NewText:      e.text,
			AnnotationID: annotation,
		})
	}
	return out
}

// lineCursor finds the positions of offsets asked in increasing order by
// counting line breaks on from the last one, rather than indexing every
// line of the text first: the index of a file of empty lines takes eight
// bytes per byte of it, and the edits of one change are in order anyway.
type lineCursor struct {
	text string
	utf8 bool
	// at is the offset last asked; line and lineStart are its line.
	at, line, lineStart int
}

// position converts a byte offset (at a rune boundary) to a position; an
// offset before the last one asked starts the count again from the top.
func (c *lineCursor) position(off int) Position {
	if off < c.at {
		c.at, c.line, c.lineStart = 0, 0, 0
	}
	seg := c.text[c.at:off]
	if n := strings.Count(seg, "\n"); n > 0 {
		c.line += n
		c.lineStart = c.at + strings.LastIndexByte(seg, '\n') + 1
	}
	c.at = off
	x := lineIndex{utf8: c.utf8}
	return Position{Line: uint32(c.line), Character: uint32(x.units(c.text[c.lineStart:off]))}
}
