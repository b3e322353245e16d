package workspace

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/udiff"
)

// TestMinimalEditsBigText: in a text well past what go-diff is given at
// once, scattered changes become one small edit each, a rewrite of every
// line becomes one edit, and applying the edits gives the new text exactly,
// in both position encodings (with CRLF and non-ASCII text).
func TestMinimalEditsBigText(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 30_000; i++ {
		fmt.Fprintf(&b, "line %06d: é 日本 😀 the quick brown fox\r\n", i)
	}
	old := b.String()
	sparse := strings.NewReplacer("line 000000:", "LINE 000000:", "line 015000:", "LINE 015000:", "line 029999:", "LINE 029999:").Replace(old)
	for _, tt := range []struct {
		name      string
		new       string
		wantEdits int
	}{
		{"three lines changed", sparse, 3},
		{"every line changed", strings.ToUpper(old), 1},
	} {
		edits := minimalEdits(old, tt.new, udiff.Changes(old, tt.new))
		if len(edits) != tt.wantEdits {
			t.Errorf("%s: %d edits, want %d", tt.name, len(edits), tt.wantEdits)
		}
		if tt.wantEdits > 1 {
			for _, e := range edits {
				if e.end-e.start > 8 || len(e.text) > 8 {
					t.Errorf("%s: edit %+v is not confined to the changed word", tt.name, e)
				}
			}
		}
		for _, enc := range []string{EncodingUTF16, EncodingUTF8} {
			if got := applyIndependently(t, old, textEdits(old, edits, enc, ""), enc); got != tt.new {
				t.Errorf("%s, %s: applying the edits does not give the new text", tt.name, enc)
			}
		}
	}
}
