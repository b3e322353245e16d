package web

import "testing"

// TestHTMLToTextDecodesCharacterReferences: the named character
// references of x/net/html's tables (built on first use, see
// third_party/xnet) decode as the HTML standard says: one code point, two,
// a legacy name without its semicolon, and an unknown name left as text.
func TestHTMLToTextDecodesCharacterReferences(t *testing.T) {
	tests := []struct {
		page, want string
	}{
		{"<p>caf&eacute; &amp; cr&egrave;me</p>", "café & crème"},
		{"<p>a &nLt; b</p>", "a \u226A\u20D2 b"},
		{"<p>&notit; here</p>", "¬it; here"},
		{"<p>&nosuchentity; stays</p>", "&nosuchentity; stays"},
	}
	for _, tt := range tests {
		t.Run(tt.page, func(t *testing.T) {
			if got, _ := htmlToText(tt.page); got != tt.want {
				t.Errorf("htmlToText(%q) = %q, want %q", tt.page, got, tt.want)
			}
		})
	}
}
