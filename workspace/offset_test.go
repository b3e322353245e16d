package workspace

import (
	"math/rand"
	"strings"
	"testing"
)

// TestOffsetOfAgreesWithIndex: the index-free offset of a didChange
// position is the indexed one, for positions on and past every line, in
// both encodings (CRLF, a last line without a break, astral characters).
func TestOffsetOfAgreesWithIndex(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	pieces := []string{"a", "\n", "\r\n", "😀", "é", "日", "\r"}
	for i := 0; i < 400; i++ {
		var b strings.Builder
		for n := r.Intn(30); n > 0; n-- {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		text := b.String()
		for _, enc := range []string{EncodingUTF16, EncodingUTF8} {
			x := newLineIndex(text, enc)
			for line := uint32(0); line <= uint32(len(x.starts))+1; line++ {
				for char := uint32(0); char < 12; char++ {
					p := Position{Line: line, Character: char}
					if got, want := offsetOf(text, p, enc), x.offset(p); got != want {
						t.Fatalf("%s: %q at %+v: offset %d, want %d", enc, text, p, got, want)
					}
				}
			}
		}
	}
}
