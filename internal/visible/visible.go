// Package visible writes out the characters that change how text is shown
// instead of showing themselves, for text a person reads to decide
// something: a permission prompt, a question, a tool's output on a
// terminal. Such text comes from the model and from the workspace (a file
// name, a command, a diff of a file a repository ships), and terminal
// escapes and other control characters, the bidirectional overrides and
// isolates that reorder a line ("Trojan Source"), and line separators
// could make it show something other than what it holds — or, on a
// terminal, rewrite what was shown before. They are written as escapes
// (`\u202e`, `\x1b`), so every character is seen.
package visible

import (
	"fmt"
	"strings"
	"unicode"
)

// Line is s on one line: newlines and tabs are escaped too (a prompt's
// title is one line; a newline in a file name must not start a new one).
func Line(s string) string { return escape(s, false) }

// Text is s with its line breaks and tabs kept (a preview is many lines)
// and every other invisible character escaped.
func Text(s string) string { return escape(s, true) }

func escape(s string, keepLines bool) string {
	if strings.IndexFunc(s, func(r rune) bool { return invisible(r, keepLines) }) < 0 {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		if !invisible(r, keepLines) {
			b.WriteRune(r)
			continue
		}
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r' && keepLines && strings.HasPrefix(s[i+1:], "\n"):
			// A Windows line end moves the cursor nowhere it would not go.
			b.WriteByte('\r')
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
// escaped there too, except before a newline, since alone it moves the
// cursor back over the line) and
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
