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
	hunks := Hunks(old, new)
	if len(hunks) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", oldName, newName)
	for _, h := range hunks {
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", span(h.OldStart, h.OldLines), span(h.NewStart, h.NewLines))
		for i, l := range h.Lines {
			b.WriteString(l)
			b.WriteByte('\n')
			if h.noEOL[i] {
				b.WriteString("\\ No newline at end of file\n")
			}
		}
	}
	return b.String()
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
	lines := diffLines(old, new)
	var hunks []Hunk
	oldNo, newNo := 1, 1 // line numbers of lines[i] in old and new
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

// diffLines is the line-level diff of old and new. A last line without a
// newline differs from the same text with one, as in diff(1).
func diffLines(old, new string) []line {
	dmp := diffmatchpatch.New()
	a, b, table := dmp.DiffLinesToRunes(old, new)
	diffs := dmp.DiffCharsToLines(dmp.DiffMainRunes(a, b, false), table)
	var out []line
	for _, d := range diffs {
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
	return reorder(out)
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
