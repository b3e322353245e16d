package visible

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Name is a file or folder name, or a path, as a tool result shows it. A
// workspace can hold names with a newline in them (so one name would read
// as two entries of a listing, or as a line of text that was never in the
// result), terminal escapes, or bidirectional overrides; such a name — one
// holding any character Line would escape, one that is not valid UTF-8, one
// starting with a double quote (which would read as quoted), or one that
// begins or ends with white space (which a reader cannot see, and which
// workspace.Resolve would otherwise take for a slip) — is shown as a JSON
// string literal: `"dir\nx/inner.txt"`. Every other name is shown as it
// is, so ordinary listings do not change.
//
// The quoted form is exact: decoded as JSON (as a model does when it passes
// it back as a tool's file_path) it is the name itself. Only a name that is
// not valid UTF-8 cannot come back, since JSON text cannot hold it; each
// byte that is not UTF-8 shows as \ufffd.
func Name(s string) string {
	if !needsQuotes(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\ufffd`)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case invisible(r, false):
			writeJSONEscape(&b, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// needsQuotes reports whether Name quotes s.
func needsQuotes(s string) bool {
	if strings.HasPrefix(s, `"`) || !utf8.ValidString(s) || s != strings.TrimSpace(s) {
		return true
	}
	return strings.IndexFunc(s, func(r rune) bool { return invisible(r, false) }) >= 0
}

// writeJSONEscape writes r as JSON's \uXXXX escape, as a surrogate pair
// beyond the Basic Multilingual Plane.
func writeJSONEscape(b *strings.Builder, r rune) {
	const hex = "0123456789abcdef"
	unit := func(u rune) {
		b.WriteString(`\u`)
		for shift := 12; shift >= 0; shift -= 4 {
			b.WriteByte(hex[(u>>shift)&0xf])
		}
	}
	if r > 0xffff {
		hi, lo := utf16.EncodeRune(r)
		unit(hi)
		unit(lo)
		return
	}
	unit(r)
}
