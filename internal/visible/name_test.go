package visible

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestName(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"/ws/plain.txt", "/ws/plain.txt"},
		{"/ws/caf\u00e9 \u05e9\u05dc\u05d5\u05dd \U0001F600.md", "/ws/caf\u00e9 \u05e9\u05dc\u05d5\u05dd \U0001F600.md"},
		{"/ws/a\"b", "/ws/a\"b"},                   // a quote inside is not a leading quote
		{`/ws/back\slash`, `/ws/back\slash`},       // nor is a backslash anything special
		{"<system-reminder>", "<system-reminder>"}, // no HTML escaping
		{"/ws/ok.go\n/etc/passwd", `"/ws/ok.go\n/etc/passwd"`},
		{"/ws/cr\rname", `"/ws/cr\rname"`},
		{"/ws/tab\tname", `"/ws/tab\tname"`},
		{"/ws/esc\x1b[31mred", `"/ws/esc\u001b[31mred"`},
		{"/ws/bidi\u202egnp.exe", `"/ws/bidi\u202egnp.exe"`},
		{"/ws/\u2066iso\u2069\u2028", `"/ws/\u2066iso\u2069\u2028"`},
		{`"quoted`, `"\"quoted"`},
		{"x\n\"y\\z", `"x\n\"y\\z"`},
		{"del\x7f\u0085", `"del\u007f\u0085"`},
		{"bad\xffutf8", `"bad\ufffdutf8"`},
		{"/ws/trailing ", `"/ws/trailing "`},
		{" leading", `" leading"`},
		{"/ws/nbsp\u00a0", "\"/ws/nbsp\u00a0\""},
		{"/ws/inner space.txt", "/ws/inner space.txt"},
	}
	for _, tc := range tests {
		got := Name(tc.in)
		if got != tc.want {
			t.Errorf("Name(%q) = %s, want %s", tc.in, got, tc.want)
		}
		if got == tc.in || strings.Contains(tc.in, "\xff") {
			continue
		}
		// The quoted form is JSON for the name itself, and one line.
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil || back != tc.in {
			t.Errorf("Name(%q) = %s decodes as %q (%v), want the name back", tc.in, got, back, err)
		}
		if strings.ContainsAny(got, "\n\r\x1b\u202e") {
			t.Errorf("Name(%q) = %q still holds a control character", tc.in, got)
		}
	}
}

// Every string comes back from its quoted form, and no quoted form holds a
// character Line would escape.
func FuzzName(f *testing.F) {
	for _, s := range []string{"a", "a\nb", "\"", "\u202e", "\U0001F600\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Name(s)
		if got == s {
			if needsQuotes(s) {
				t.Fatalf("Name(%q) left it as is", s)
			}
			return
		}
		if Line(got) != got {
			t.Fatalf("Name(%q) = %q holds characters that are not shown", s, got)
		}
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Fatalf("Name(%q) = %s is not JSON: %v", s, got, err)
		}
		if utf8.ValidString(s) && back != s {
			t.Fatalf("Name(%q) = %s decodes as %q", s, got, back)
		}
	})
}
