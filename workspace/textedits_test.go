package workspace

import (
	"math/rand"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/toolhost/toolhost/internal/udiff"
)

// applyIndependently applies LSP edits with its own position arithmetic
// (UTF-16 through unicode/utf16, UTF-8 as bytes), failing on positions past a
// line's content or inside a character.
func applyIndependently(t *testing.T, text string, edits []AnnotatedTextEdit, enc string) string {
	t.Helper()
	lines := strings.SplitAfter(text, "\n")
	offset := func(p Position) int {
		off := 0
		for i := 0; i < int(p.Line); i++ {
			off += len(lines[i])
		}
		line := strings.TrimSuffix(strings.TrimSuffix(lines[p.Line], "\n"), "\r")
		if enc == EncodingUTF8 {
			if int(p.Character) > len(line) {
				t.Fatalf("character %d past the end of %q", p.Character, line)
			}
			return off + int(p.Character)
		}
		units := 0
		for i, r := range line {
			if units == int(p.Character) {
				return off + i
			}
			units += len(utf16.Encode([]rune{r}))
		}
		if units != int(p.Character) {
			t.Fatalf("character %d past the end of %q or inside a character", p.Character, line)
		}
		return off + len(line)
	}
	for i := len(edits) - 1; i >= 0; i-- {
		s, e := offset(edits[i].Range.Start), offset(edits[i].Range.End)
		if i > 0 && offset(edits[i-1].Range.End) > s {
			t.Fatalf("edits overlap or are out of order: %+v", edits)
		}
		text = text[:s] + edits[i].NewText + text[e:]
	}
	return text
}

func TestMinimalEditsRoundTrip(t *testing.T) {
	tests := []struct{ name, old, new string }{
		{"one word", "alpha beta gamma\nsecond line\n", "alpha BETA gamma\nsecond line\n"},
		{"emoji and CJK before the change", "😀😀 日本 x = 1\nnext\n", "😀😀 日本 x = 2\nnext\n"},
		{"insert lines", "a\nb\nc\n", "a\nb\nnew 🚀\nc\n"},
		{"delete to empty", "a\nb\n", ""},
		{"from empty", "", "hello\n"},
		{"CRLF kept whole", "one\r\ntwo\r\nthree\r\n", "one\r\ntwo!\r\nthree\r\n"},
		{"CRLF to LF", "one\r\ntwo\r\n", "one\ntwo\n"},
		{"LF to CRLF", "one\ntwo\n", "one\r\ntwo\r\n"},
		{"no final newline", "a\nb", "a\nb\nc"},
		{"replace all", "x := 1\ny := x\nz := x\n", "v := 1\ny := v\nz := v\n"},
	}
	for _, tt := range tests {
		for _, enc := range []string{EncodingUTF16, EncodingUTF8} {
			t.Run(tt.name+"/"+enc, func(t *testing.T) {
				edits := textEdits(tt.old, minimalEdits(tt.old, tt.new, udiff.Changes(tt.old, tt.new)), enc, "a")
				if got := applyIndependently(t, tt.old, edits, enc); got != tt.new {
					t.Fatalf("applying %+v to %q gave %q, want %q", edits, tt.old, got, tt.new)
				}
			})
		}
	}
}

func TestMinimalEditsRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	pieces := []string{"a", "b", " ", "\n", "\r\n", "😀", "日本", "é", "\t", "x"}
	gen := func() string {
		var b strings.Builder
		for n := rng.Intn(40); n > 0; n-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		return b.String()
	}
	for i := 0; i < 500; i++ {
		old, new := gen(), gen()
		for _, enc := range []string{EncodingUTF16, EncodingUTF8} {
			edits := textEdits(old, minimalEdits(old, new, udiff.Changes(old, new)), enc, "")
			if got := applyIndependently(t, old, edits, enc); got != new {
				t.Fatalf("%s: applying %+v to %q gave %q, want %q", enc, edits, old, got, new)
			}
		}
	}
}

func TestMinimalEditsAreSmall(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 200; i++ {
		b.WriteString("line of text number something\n")
	}
	old := b.String()
	new := strings.Replace(old, "text", "prose", 1)
	edits := textEdits(old, minimalEdits(old, new, udiff.Changes(old, new)), EncodingUTF16, "")
	if len(edits) != 1 {
		t.Fatalf("got %d edits, want 1: %+v", len(edits), edits)
	}
	e := edits[0]
	if e.Range.Start.Line != 0 || e.Range.End.Line != 0 || len(e.NewText) > len("prose") {
		t.Errorf("edit %+v is not confined to the changed word", e)
	}
}
