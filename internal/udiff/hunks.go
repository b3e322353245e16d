package udiff

import "strings"

// HunksOf groups changes (Changes(old, new)) into hunks with Context lines
// of context. It keeps at most max bytes of lines (each counted with its
// newline; max < 0: no limit): a hunk cut there ends at the last whole line
// kept and counts only the lines it holds, so what is returned is still a
// correct, partial patch. omitted is the size of the lines left out, 0 when
// the patch is whole. Only the lines shown are split out of the texts: the
// unchanged stretches between hunks are skipped, not walked line by line.
func HunksOf(old, new string, changes []Change, max int) (hunks []Hunk, omitted int) {
	b := hunkBuilder{old: old, new: new, max: max, oldNo: 1, newNo: 1}
	for i := 0; i < len(changes); {
		// A hunk takes changes while the equal lines between them are at
		// most 2*Context.
		j := i + 1
		for j < len(changes) && !moreLinesThan(old[changes[j-1].OldEnd:changes[j].OldStart], 2*Context) {
			j++
		}
		b.hunk(changes[i:j])
		i = j
	}
	return b.hunks, b.omitted
}

// hunkBuilder builds hunks in order, tracking line numbers as it goes.
type hunkBuilder struct {
	old, new string
	max      int
	kept     int // bytes of lines kept
	omitted  int // bytes of lines left out
	hunks    []Hunk
	// oldNo is the line number at offset oldAt of old; newNo likewise.
	oldAt, oldNo, newAt, newNo int
}

// lineNo returns the 1-based number of the line starting at off, counting
// on from the last one asked (offsets only grow).
func lineNo(text string, at, no *int, off int) int {
	*no += strings.Count(text[*at:off], "\n")
	*at = off
	return *no
}

// hunk builds the hunk of a group of changes.
func (b *hunkBuilder) hunk(group []Change) {
	first, last := group[0], group[len(group)-1]
	before := first.OldStart - lastLinesStart(b.old[:first.OldStart], Context)
	h := &Hunk{
		OldStart: lineNo(b.old, &b.oldAt, &b.oldNo, first.OldStart-before),
		NewStart: lineNo(b.new, &b.newAt, &b.newNo, first.NewStart-before),
	}
	at := first.OldStart - before
	for _, ch := range group {
		b.lines(h, ' ', b.old[at:ch.OldStart])
		b.lines(h, '-', b.old[ch.OldStart:ch.OldEnd])
		b.lines(h, '+', b.new[ch.NewStart:ch.NewEnd])
		at = ch.OldEnd
	}
	tail := b.old[last.OldEnd:]
	b.lines(h, ' ', tail[:firstLinesEnd(tail, Context)])
	if len(h.Lines) > 0 || b.omitted == 0 {
		b.hunks = append(b.hunks, *h)
	}
}

// lines adds the lines of text (whole lines, the last maybe without a
// newline) to h with the prefix, as far as the size limit allows.
func (b *hunkBuilder) lines(h *Hunk, prefix byte, text string) {
	for text != "" {
		if b.omitted > 0 {
			b.omitted += len(text) + strings.Count(text, "\n") + 1
			return
		}
		i := strings.IndexByte(text, '\n')
		l, eol := text, false
		if i >= 0 {
			l, eol = text[:i], true
		}
		size := len(l) + 2
		if b.max >= 0 && b.kept+size > b.max {
			b.omitted += len(text) + strings.Count(text, "\n") + 1
			return
		}
		b.kept += size
		if !eol {
			if h.noEOL == nil {
				h.noEOL = map[int]bool{}
			}
			h.noEOL[len(h.Lines)] = true
		}
		h.Lines = append(h.Lines, string(prefix)+l)
		switch prefix {
		case '-':
			h.OldLines++
		case '+':
			h.NewLines++
		default:
			h.OldLines++
			h.NewLines++
		}
		if !eol {
			return
		}
		text = text[i+1:]
	}
}

// moreLinesThan reports whether s (whole lines) holds more than n lines.
func moreLinesThan(s string, n int) bool {
	for ; n >= 0; n-- {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return s != "" && n == 0
		}
		s = s[i+1:]
	}
	return true
}
