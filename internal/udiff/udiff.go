// Package udiff renders unified diffs (the format of `diff -u` and `git
// diff`, which GNU patch applies) of two texts. go-diff finds the changed
// lines; this package only groups them into hunks with context, because
// go-diff's own PatchToText is a character-level, percent-encoded patch
// that neither people nor patch(1) read.
package udiff

import (
	"fmt"
	"strings"
)

// Context is the number of unchanged lines shown around each change.
const Context = 3

// Hunk is one group of changes with its context, as in Claude Code's
// structuredPatch: line numbers are 1-based; Lines start with ' ', '-' or
// '+' and carry no line terminator.
type Hunk struct {
	OldStart int      `json:"oldStart"`
	OldLines int      `json:"oldLines"`
	NewStart int      `json:"newStart"`
	NewLines int      `json:"newLines"`
	Lines    []string `json:"lines"`
	// noEOL marks, by index into Lines, lines that end their text without a
	// newline ("\ No newline at end of file").
	noEOL map[int]bool
}

// Unified returns the unified diff of old and new under the given names, or
// "" when they are equal.
func Unified(oldName, newName, old, new string) string {
	return Render(oldName, newName, Hunks(old, new))
}

// Render writes hunks as a unified diff under the given names ("" for no
// hunks).
func Render(oldName, newName string, hunks []Hunk) string {
	d, _ := RenderCut(oldName, newName, hunks, -1)
	return d
}

// RenderCut is Render keeping at most max bytes of whole lines (max < 0:
// all of them), and the length the whole diff has: a diff of megabytes cut
// for display is not built whole.
func RenderCut(oldName, newName string, hunks []Hunk, max int) (diff string, total int) {
	if len(hunks) == 0 {
		return "", 0
	}
	var b strings.Builder
	full := true
	add := func(s string) {
		total += len(s)
		if full && (max < 0 || b.Len()+len(s) <= max) {
			b.WriteString(s)
		} else {
			full = false
		}
	}
	add(fmt.Sprintf("--- %s\n+++ %s\n", oldName, newName))
	for _, h := range hunks {
		add(fmt.Sprintf("@@ -%s +%s @@\n", span(h.OldStart, h.OldLines), span(h.NewStart, h.NewLines)))
		for i, l := range h.Lines {
			if full {
				add(l + "\n")
			} else {
				total += len(l) + 1
			}
			if h.noEOL[i] {
				add("\\ No newline at end of file\n")
			}
		}
	}
	return b.String(), total
}

// span formats a hunk range as diff does: "start,count", "start" for one
// line, and the line before for an empty range.
func span(start, count int) string {
	switch count {
	case 1:
		return fmt.Sprint(start)
	case 0:
		return fmt.Sprintf("%d,0", start-1)
	}
	return fmt.Sprintf("%d,%d", start, count)
}

// Hunks returns the changes from old to new grouped into hunks with Context
// lines of context.
func Hunks(old, new string) []Hunk {
	hunks, _ := HunksOf(old, new, Changes(old, new), -1)
	return hunks
}

// CommonLines returns the lengths of the longest common prefix and suffix
// of a and b made of whole lines, not overlapping: what a diff of the two
// need not look at.
func CommonLines(a, b string) (prefix, suffix int) {
	prefix = commonPrefixLines(a, b)
	return prefix, commonSuffixLines(a[prefix:], b[prefix:])
}

// commonPrefixLines is the length of the longest common prefix of a and b
// that ends at a line's end (or is empty).
func commonPrefixLines(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == len(a) && i == len(b) {
		return i
	}
	return strings.LastIndexByte(a[:i], '\n') + 1
}

// commonSuffixLines is the length of the longest common suffix of a and b
// made of whole lines (starting right after a newline, or at the start of
// both).
func commonSuffixLines(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	if i == len(a) && i == len(b) {
		return i
	}
	// Move forward to just after a newline inside the common part, so the
	// suffix starts a line in both texts.
	start := len(a) - i
	for start < len(a) && !(start > 0 && a[start-1] == '\n' && (len(b)-(len(a)-start) == 0 || b[len(b)-(len(a)-start)-1] == '\n')) {
		start++
	}
	return len(a) - start
}

// lastLinesStart is the offset where the last n lines of s (which ends at
// a line's end or is empty) begin.
func lastLinesStart(s string, n int) int {
	end := len(s)
	for ; n > 0 && end > 0; n-- {
		end = strings.LastIndexByte(s[:end-1], '\n') + 1
	}
	return end
}

// firstLinesEnd is the offset just past the first n lines of s.
func firstLinesEnd(s string, n int) int {
	off := 0
	for ; n > 0 && off < len(s); n-- {
		i := strings.IndexByte(s[off:], '\n')
		if i < 0 {
			return len(s)
		}
		off += i + 1
	}
	return off
}
