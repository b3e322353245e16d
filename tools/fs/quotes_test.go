package fs

import (
	"runtime"
	"strings"
	"testing"
)

// quotedMatches maps matches in the straightened text back to the bytes of
// the text, curly quotes (three bytes each) and other multi-byte letters
// before and inside them.
func TestQuotedMatchesSpans(t *testing.T) {
	tests := []struct {
		name, text, old string
		want            []string
	}{
		{"no curly quotes", `say "hi" and "hi"`, `"hi"`, []string{`"hi"`, `"hi"`}},
		{"curly in the text", "é “hi” ü ‘yo’ “hi”", `"hi"`, []string{"“hi”", "“hi”"}},
		{"curly in old_string", `a 'b' c`, "‘b’", []string{"'b'"}},
		{"mixed", "x “a ‘b’ c” y", `"a 'b' c"`, []string{"“a ‘b’ c”"}},
		{"at the end", "ü ‘z’", "'z'", []string{"‘z’"}},
		{"none", "“hi”", `'hi'`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, m := range quotedMatches(tt.text, tt.old) {
				got = append(got, tt.text[m.start:m.end])
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("matches = %q, want %q", got, tt.want)
			}
		})
	}
}

// Looking for a quote-insensitive match costs at most a copy of the text,
// not a table of offsets (eight bytes per byte): an Edit whose old_string
// is not in a large file must not take ten times the file to say so.
func TestQuotedMatchesMemory(t *testing.T) {
	for _, tt := range []struct {
		name string
		text string
	}{
		{"straight quotes only", strings.Repeat(`a line with "quotes" in it`+"\n", 400_000)},
		{"curly quotes", strings.Repeat("a line with “quotes” in it\n", 400_000)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			if m := quotedMatches(tt.text, `"not there"`); len(m) != 0 {
				t.Fatalf("found %d matches", len(m))
			}
			runtime.ReadMemStats(&after)
			if grew := after.TotalAlloc - before.TotalAlloc; grew > uint64(len(tt.text))*3/2 {
				t.Errorf("allocated %d bytes for a %d-byte text, want at most one copy", grew, len(tt.text))
			}
		})
	}
}
