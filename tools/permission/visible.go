package permission

import (
	"fmt"
	"strings"
	"unicode"
)

// Text of a permission prompt comes from the model and from the
// workspace (a file name, a command, a diff of a file a repository ships),
// and the user approves what they see. Characters that change how text is
// shown instead of showing themselves — terminal escapes and other
// control characters, the bidirectional overrides and isolates that
// reorder a line ("Trojan Source"), line separators — could make a prompt
// show a harmless command for a harmful one. They are written out as
// escapes (`\u202e`, `\x1b`), so the prompt shows every character that
// runs or is written.

// visibleLine is s on one line: newlines and tabs are escaped too (a
// prompt's title is one line; a newline in a file name must not start a
// new one).
func visibleLine(s string) string { return escapeInvisible(s, false) }

// visibleText is s with its line breaks and tabs kept (a preview is many
// lines) and every other invisible character escaped.
func visibleText(s string) string { return escapeInvisible(s, true) }

func escapeInvisible(s string, keepLines bool) string {
	if strings.IndexFunc(s, func(r rune) bool { return invisible(r, keepLines) }) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if !invisible(r, keepLines) {
			b.WriteRune(r)
			continue
		}
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// invisible reports whether r is shown as an escape: control characters
// (all but newline and tab when lines are kept; a carriage return is
// escaped there too, since it can move the cursor back over a line) and
// the format characters that reorder or break lines.
func invisible(r rune, keepLines bool) bool {
	switch {
	case keepLines && (r == '\n' || r == '\t'):
		return false
	case unicode.IsControl(r):
		return true
	case r == 0x061C, r == 0x200E, r == 0x200F, // Arabic letter mark, LRM, RLM
		r >= 0x202A && r <= 0x202E, // embeddings and overrides
		r >= 0x2066 && r <= 0x2069, // isolates
		r == 0x2028, r == 0x2029:   // line and paragraph separators
		return true
	}
	return false
}
