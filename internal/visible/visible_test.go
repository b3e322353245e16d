package visible

import "testing"

func TestVisibleText(t *testing.T) {
	tests := []struct {
		in, line, text string
	}{
		{"ls -la", "ls -la", "ls -la"},
		{"a\nb\tc", `a\nb\tc`, "a\nb\tc"},
		{"rm -rf ~ #\u202e hs.etadpu", `rm -rf ~ #\u202e hs.etadpu`, `rm -rf ~ #\u202e hs.etadpu`},
		{"echo \x1b[2Jhi\r", `echo \x1b[2Jhi\r`, `echo \x1b[2Jhi\r`},
		{"a\u2066b\u2069\u2028c\u200f", `a\u2066b\u2069\u2028c\u200f`, `a\u2066b\u2069\u2028c\u200f`},
		{"caf\u00e9 \u05e9\u05dc\u05d5\u05dd \U0001F600", "caf\u00e9 \u05e9\u05dc\u05d5\u05dd \U0001F600", "caf\u00e9 \u05e9\u05dc\u05d5\u05dd \U0001F600"},
		{"\u0085\u007f", `\u0085\x7f`, `\u0085\x7f`},
		{"a\r\nb\rc", `a\r\nb\rc`, "a\r\nb\\rc"},
	}
	for _, tc := range tests {
		if got := Line(tc.in); got != tc.line {
			t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.line)
		}
		if got := Text(tc.in); got != tc.text {
			t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.text)
		}
	}
}
