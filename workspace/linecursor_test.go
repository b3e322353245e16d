package workspace

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/memprobe"
)

// lineCursor gives the positions lineIndex gives, for offsets asked in
// order and out of it, in both encodings, over CRLF, astral characters and
// runs of empty lines.
func TestLineCursorAgreesWithLineIndex(t *testing.T) {
	text := "a\r\nβγ\n\n\n𝄞x\n" + strings.Repeat("\n", 50) + "end 𝄞\r\nlast"
	var offs []int
	for i := range text { // rune boundaries
		offs = append(offs, i)
	}
	offs = append(offs, len(text))
	rng := rand.New(rand.NewSource(1))
	shuffled := append([]int(nil), offs...)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for _, enc := range []string{EncodingUTF8, EncodingUTF16} {
		x := newLineIndex(text, enc)
		for name, order := range map[string][]int{"in order": offs, "shuffled": shuffled} {
			c := lineCursor{text: text, utf8: enc == EncodingUTF8}
			for _, off := range order {
				if got, want := c.position(off), x.position(off); got != want {
					t.Fatalf("%s, %s: position(%d) = %+v, want %+v", enc, name, off, got, want)
				}
			}
		}
	}
}

// BenchmarkTextEditsEmptyLines converts one edit at the end of 20 MB of
// empty lines (a hostile file's shape) and reports the peak heap and the
// bytes allocated per byte of the text.
func BenchmarkTextEditsEmptyLines(b *testing.B) {
	old := strings.Repeat("\n", 20<<20) + "x"
	edits := []byteEdit{{start: len(old) - 1, end: len(old), text: "y"}}
	b.SetBytes(int64(len(old)))
	var rec memprobe.Recorder
	for i := 0; i < b.N; i++ {
		rec.Measure(func() {
			if e := textEdits(old, edits, EncodingUTF16, ""); e[0].Range.Start.Line != 20<<20 {
				b.Fatalf("edit at %+v", e[0].Range)
			}
		})
	}
	rec.Report(b, len(old), "text")
}
