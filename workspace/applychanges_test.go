package workspace

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// applyOneByOne is the reference: each change applied to the text the ones
// before it produced, as LSP defines didChange.
func applyOneByOne(text string, changes []ContentChange, encoding string) string {
	for _, c := range changes {
		if c.Range == nil {
			text = c.Text
			continue
		}
		start, end := offsetOf(text, c.Range.Start, encoding), offsetOf(text, c.Range.End, encoding)
		if end < start {
			return "<backward>"
		}
		text = text[:start] + c.Text + text[end:]
	}
	return text
}

// randomPosition is a position of text: mostly a place in it (a character
// boundary of a line, counted in enc's units), now and then one past its
// line's end or the text's, or inside a character, as an odd client may
// send.
func randomPosition(r *rand.Rand, text, enc string) Position {
	lines := strings.Split(text, "\n")
	if r.IntN(8) == 0 {
		return Position{Line: uint32(r.IntN(len(lines) + 1)), Character: uint32(r.IntN(12))}
	}
	line := r.IntN(len(lines))
	content := strings.TrimSuffix(lines[line], "\r")
	bounds := []int{0}
	n := 0
	for _, c := range content {
		switch {
		case enc == EncodingUTF8:
			n += len(string(c))
		case c >= 0x10000:
			n += 2
		default:
			n++
		}
		bounds = append(bounds, n)
	}
	return Position{Line: uint32(line), Character: uint32(bounds[r.IntN(len(bounds))])}
}

// backwardChanges makes n changes that run backwards through text: each
// ends at or before the start of the one before it.
func backwardChanges(r *rand.Rand, text, enc string, n int) []ContentChange {
	ps := make([]Position, 2*n)
	for i := range ps {
		ps[i] = randomPosition(r, text, enc)
	}
	// Sorted descending, the pairs (ps[2i+1], ps[2i]) run backwards.
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && before(ps[j-1], ps[j]); j-- {
			ps[j-1], ps[j] = ps[j], ps[j-1]
		}
	}
	inserts := []string{"", "x", "日本", "😀", "a\nb", "\r\n", "line\n"}
	changes := make([]ContentChange, n)
	for i := range changes {
		changes[i] = ContentChange{Range: &Range{Start: ps[2*i+1], End: ps[2*i]}, Text: inserts[r.IntN(len(inserts))]}
	}
	return changes
}

func TestApplyChangesMatchesOneByOne(t *testing.T) {
	texts := []string{
		"",
		"one line",
		"hello world\nsecond\n",
		"a😀b日c\r\nline two\r\n\r\nend",
		"\n\n\n",
		strings.Repeat("short\nlonger line here\n", 20),
	}
	r := rand.New(rand.NewPCG(1, 2))
	// How many change sets the one pass took (the others fall back to one
	// by one): the comparison must cover it, not only the fallback.
	onePass := 0
	for _, enc := range []string{EncodingUTF16, EncodingUTF8} {
		for ti, text := range texts {
			for round := 0; round < 300; round++ {
				changes := backwardChanges(r, text, enc, 1+r.IntN(8))
				if round%10 == 0 {
					// Now and then one out of order: applied one by one.
					i, j := r.IntN(len(changes)), r.IntN(len(changes))
					changes[i], changes[j] = changes[j], changes[i]
				}
				if round%25 == 0 {
					changes = append([]ContentChange{{Text: text + "full\n"}}, changes...)
				}
				want := applyOneByOne(text, changes, enc)
				if len(changes) > 1 && changes[0].Range != nil && runBackwards(changes) {
					if got, ok := applyInOnePass(text, changes, enc == EncodingUTF8); ok {
						onePass++
						if got != want {
							t.Fatalf("%s text %d round %d: one pass of %s\ngot  %q\nwant %q", enc, ti, round, describe(changes), got, want)
						}
					}
				}
				got, err := applyChanges(text, changes, enc)
				if want == "<backward>" {
					if err == nil {
						t.Fatalf("%s text %d round %d: a range ending before its start was taken: %q", enc, ti, round, got)
					}
					continue
				}
				if err != nil || got != want {
					t.Fatalf("%s text %d round %d: changes %s\ngot  %q (%v)\nwant %q", enc, ti, round, describe(changes), got, err, want)
				}
			}
		}
	}
	if onePass < 200 {
		t.Errorf("the one pass took only %d change sets: the test covers the fallback only", onePass)
	}
	t.Logf("%d change sets applied in one pass", onePass)
}

func describe(changes []ContentChange) string {
	var b strings.Builder
	for _, c := range changes {
		if c.Range == nil {
			fmt.Fprintf(&b, "[full %q] ", c.Text)
			continue
		}
		fmt.Fprintf(&b, "[%d:%d-%d:%d %q] ", c.Range.Start.Line, c.Range.Start.Character, c.Range.End.Line, c.Range.End.Character, c.Text)
	}
	return b.String()
}

func TestApplyChangesRefusesABackwardRange(t *testing.T) {
	for _, changes := range [][]ContentChange{
		{{Range: &Range{Start: Position{0, 3}, End: Position{0, 1}}}},
		{
			{Range: &Range{Start: Position{1, 0}, End: Position{1, 1}}},
			{Range: &Range{Start: Position{0, 3}, End: Position{0, 1}}},
		},
	} {
		if _, err := applyChanges("abcdef\nghi\n", changes, EncodingUTF16); err != errBackwardRange {
			t.Errorf("changes %s: err %v, want errBackwardRange", describe(changes), err)
		}
	}
}

// replaceAll is what VS Code sends for a replace-all of every line's
// "x := 1" in a document of lines such lines: one change per line, last
// line first.
func replaceAll(lines int) (string, []ContentChange) {
	text := strings.Repeat("\tx := 1 // a line of some ordinary length, as code has\n", lines)
	changes := make([]ContentChange, lines)
	for i := range changes {
		line := uint32(lines - 1 - i)
		changes[i] = ContentChange{Range: &Range{Start: Position{line, 1}, End: Position{line, 7}}, Text: "y := 2"}
	}
	return text, changes
}

// BenchmarkDidChangeReplaceAll: a replace-all of 2,000 places in a 110 KB
// document, applied in one pass and one by one (the way before).
func BenchmarkDidChangeReplaceAll(b *testing.B) {
	text, changes := replaceAll(2000)
	b.Run("one-pass", func(b *testing.B) {
		for b.Loop() {
			if _, err := applyChanges(text, changes, EncodingUTF16); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("one-by-one", func(b *testing.B) {
		for b.Loop() {
			applyOneByOne(text, changes, EncodingUTF16)
		}
	})
}
