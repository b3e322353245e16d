package udiff

import (
	"math/rand"
	"strings"
	"testing"
)

// apply applies hunks to old, checking every context and deleted line.
func apply(t *testing.T, old string, hunks []Hunk) string {
	t.Helper()
	lines := strings.SplitAfter(old, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var out strings.Builder
	next := 0 // index into lines
	for _, h := range hunks {
		start := h.OldStart - 1
		for ; next < start; next++ {
			out.WriteString(lines[next])
		}
		for i, l := range h.Lines {
			text := l[1:]
			if !h.noEOL[i] {
				text += "\n"
			}
			switch l[0] {
			case ' ', '-':
				if next >= len(lines) || lines[next] != text {
					t.Fatalf("hunk %+v: line %d is %q in old, the hunk says %q", h, next+1, lines[min(next, len(lines)-1)], text)
				}
				next++
				if l[0] == ' ' {
					out.WriteString(text)
				}
			case '+':
				out.WriteString(text)
			}
		}
	}
	for ; next < len(lines); next++ {
		out.WriteString(lines[next])
	}
	return out.String()
}

// TestHunksApply: on random texts, applying the hunks to the old text
// gives the new one, whatever is trimmed before diffing.
func TestHunksApply(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	words := []string{"a\n", "b\n", "c\n", "a", "b", "\n", "x\n"}
	text := func() string {
		var b strings.Builder
		for n := r.Intn(30); n > 0; n-- {
			b.WriteString(words[r.Intn(len(words))])
		}
		return b.String()
	}
	for i := 0; i < 3000; i++ {
		old, new := text(), text()
		if r.Intn(2) == 0 {
			common := text()
			old, new = common+old+common, common+new+common
		}
		if got := apply(t, old, Hunks(old, new)); got != new {
			t.Fatalf("old %q new %q: applying the hunks gives %q", old, new, got)
		}
	}
}
