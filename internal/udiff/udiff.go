// Package udiff renders unified diffs (the format of `diff -u` and `git
// diff`, which GNU patch applies) of two texts. go-diff finds the changed
// lines; this package only groups them into hunks with context, because
// go-diff's own PatchToText is a character-level, percent-encoded patch
// that neither people nor patch(1) read.
package udiff

import (
	"fmt"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
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

// line is one line of the line-level diff.
type line struct {
	op   diffmatchpatch.Operation
	text string // without its "\n"
	eol  bool   // whether it ended with "\n"
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
	if old == new {
		return nil
	}
	lines, first := diffLines(old, new)
	var hunks []Hunk
	// Line numbers of lines[i] in old and new; lines starts after first
	// equal lines that were not diffed.
	oldNo, newNo := first+1, first+1
	oldAt := make([]int, len(lines))
	newAt := make([]int, len(lines))
	for i, l := range lines {
		oldAt[i], newAt[i] = oldNo, newNo
		if l.op != diffmatchpatch.DiffInsert {
			oldNo++
		}
		if l.op != diffmatchpatch.DiffDelete {
			newNo++
		}
	}
	for i := 0; i < len(lines); {
		if lines[i].op == diffmatchpatch.DiffEqual {
			i++
			continue
		}
		// A hunk starts Context lines before the change and runs until a
		// stretch of more than 2*Context equal lines (or the end).
		start := max(0, i-Context)
		end := i
		for end < len(lines) {
			if lines[end].op != diffmatchpatch.DiffEqual {
				end++
				continue
			}
			run := end
			for run < len(lines) && lines[run].op == diffmatchpatch.DiffEqual {
				run++
			}
			if run == len(lines) || run-end > 2*Context {
				end = min(end+Context, run)
				break
			}
			end = run
		}
		h := Hunk{OldStart: oldAt[start], NewStart: newAt[start], noEOL: map[int]bool{}}
		for _, l := range lines[start:end] {
			prefix := " "
			switch l.op {
			case diffmatchpatch.DiffDelete:
				prefix = "-"
				h.OldLines++
			case diffmatchpatch.DiffInsert:
				prefix = "+"
				h.NewLines++
			default:
				h.OldLines++
				h.NewLines++
			}
			if !l.eol {
				h.noEOL[len(h.Lines)] = true
			}
			h.Lines = append(h.Lines, prefix+l.text)
		}
		hunks = append(hunks, h)
		i = end
	}
	return hunks
}

// WholeSize is the size (old and new bytes together) of the changed middle
// of two texts past which it is shown as one replacement rather than
// diffed line by line: a minimal diff of megabytes that changed everywhere
// costs seconds and shows nothing more useful.
const WholeSize = 1 << 20

// diffLines is the line-level diff of old and new. A last line without a
// newline differs from the same text with one, as in diff(1). The common
// leading and trailing lines are not diffed: only the last and first
// Context of them are returned, and first is how many leading equal lines
// were left out.
func diffLines(old, new string) (lines []line, first int) {
	pre, suf := CommonLines(old, new)
	midOld, midNew := old[pre:len(old)-suf], new[pre:len(new)-suf]

	// The context kept around the middle.
	head := old[:pre]
	keep := lastLinesStart(head, Context)
	first = strings.Count(head[:keep], "\n")
	tail := old[len(old)-suf:]
	tail = tail[:firstLinesEnd(tail, Context)]

	var diffs []diffmatchpatch.Diff
	if len(midOld)+len(midNew) > WholeSize {
		diffs = []diffmatchpatch.Diff{
			{Type: diffmatchpatch.DiffDelete, Text: midOld},
			{Type: diffmatchpatch.DiffInsert, Text: midNew},
		}
	} else {
		dmp := diffmatchpatch.New()
		a, b, table := dmp.DiffLinesToRunes(midOld, midNew)
		diffs = dmp.DiffCharsToLines(dmp.DiffMainRunes(a, b, false), table)
	}
	all := make([]diffmatchpatch.Diff, 0, len(diffs)+2)
	all = append(all, diffmatchpatch.Diff{Type: diffmatchpatch.DiffEqual, Text: head[keep:]})
	all = append(all, diffs...)
	all = append(all, diffmatchpatch.Diff{Type: diffmatchpatch.DiffEqual, Text: tail})
	var out []line
	for _, d := range all {
		text := d.Text
		for text != "" {
			i := strings.IndexByte(text, '\n')
			if i < 0 {
				out = append(out, line{op: d.Type, text: text})
				break
			}
			out = append(out, line{op: d.Type, text: text[:i], eol: true})
			text = text[i+1:]
		}
	}
	return reorder(out), first
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

// reorder puts the deletions of each changed block before its insertions,
// the order unified diffs use.
func reorder(lines []line) []line {
	out := make([]line, 0, len(lines))
	for i := 0; i < len(lines); {
		if lines[i].op == diffmatchpatch.DiffEqual {
			out = append(out, lines[i])
			i++
			continue
		}
		j := i
		for j < len(lines) && lines[j].op != diffmatchpatch.DiffEqual {
			j++
		}
		for _, l := range lines[i:j] {
			if l.op == diffmatchpatch.DiffDelete {
				out = append(out, l)
			}
		}
		for _, l := range lines[i:j] {
			if l.op == diffmatchpatch.DiffInsert {
				out = append(out, l)
			}
		}
		i = j
	}
	return out
}
