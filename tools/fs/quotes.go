package fs

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Curly quotes: a model types ' and " where the file has ‘ ’ “ ”. As in
// Claude Code, Edit matches old_string with either kind of quote when it
// does not match exactly, and writes new_string in the quote style of the
// text it replaces, so a typographic file stays typographic.

const (
	leftSingle  = '‘'
	rightSingle = '’'
	leftDouble  = '“'
	rightDouble = '”'
)

// straightQuotes replaces curly quotes with straight ones. Every other byte
// is kept, so line numbers stay the same.
func straightQuotes(s string) string {
	if !strings.ContainsAny(s, "‘’“”") {
		return s
	}
	// One buffer of the input's size (the result is shorter): a large
	// file is copied once.
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch r {
		case leftSingle, rightSingle:
			b.WriteByte('\'')
		case leftDouble, rightDouble:
			b.WriteByte('"')
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// quoteSpan is a byte range of a text.
type quoteSpan struct{ start, end int }

// quotedMatches returns where old occurs in text when curly and straight
// quotes count as the same, as byte ranges of text, not overlapping.
func quotedMatches(text, old string) []quoteSpan {
	needle := straightQuotes(old)
	if needle == "" {
		return nil
	}
	// The text itself when it has no curly quotes; else one copy. Offsets
	// are mapped back only for the matches: a table of every byte's offset
	// would cost eight times the file (a 280 MB file took 3 GB to report
	// that old_string is not in it).
	norm := straightQuotes(text)
	back := offsetsBack{text: text}
	var out []quoteSpan
	for pos := 0; pos <= len(norm)-len(needle); {
		i := strings.Index(norm[pos:], needle)
		if i < 0 {
			break
		}
		a, b := pos+i, pos+i+len(needle)
		out = append(out, quoteSpan{back.at(a), back.at(b)})
		pos = b
	}
	return out
}

// offsetsBack maps offsets of straightQuotes(text) to the offsets of text
// they came from, walking text once for offsets asked in increasing order.
type offsetsBack struct {
	text string
	// i is an offset of text and n the offset of straightQuotes(text) it
	// maps to.
	i, n int
}

func (o *offsetsBack) at(target int) int {
	for o.n < target && o.i < len(o.text) {
		r, size := utf8.DecodeRuneInString(o.text[o.i:])
		o.i += size
		switch r {
		case leftSingle, rightSingle, leftDouble, rightDouble:
			o.n++ // one straight quote for the three bytes of a curly one
		default:
			o.n += size
		}
	}
	return o.i
}

// replaceQuoted replaces the quote-insensitive matches of old in text (the
// first, or all) with new in each match's own quote style.
func replaceQuoted(text, old, new string, all bool) string {
	matches := quotedMatches(text, old)
	if !all && len(matches) > 1 {
		matches = matches[:1]
	}
	var b strings.Builder
	last := 0
	for _, m := range matches {
		b.WriteString(text[last:m.start])
		b.WriteString(inQuoteStyle(text[m.start:m.end], new))
		last = m.end
	}
	b.WriteString(text[last:])
	return b.String()
}

// inQuoteStyle writes s's quotes the way like writes them: curly when like
// has curly quotes of that kind, straight when it has only straight ones,
// unchanged when like has none of that kind.
func inQuoteStyle(like, s string) string {
	curlySingle := strings.ContainsAny(like, "‘’")
	curlyDouble := strings.ContainsAny(like, "“”")
	straightSingle := strings.Contains(like, "'")
	straightDouble := strings.Contains(like, `"`)
	rs := []rune(s)
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range rs {
		var prev, next rune
		if i > 0 {
			prev = rs[i-1]
		}
		if i+1 < len(rs) {
			next = rs[i+1]
		}
		switch {
		case r == '\'' && curlySingle:
			switch {
			case unicode.IsLetter(prev) && unicode.IsLetter(next):
				r = rightSingle // an apostrophe: don’t
			case opens(prev):
				r = leftSingle
			default:
				r = rightSingle
			}
		case r == '"' && curlyDouble:
			if opens(prev) {
				r = leftDouble
			} else {
				r = rightDouble
			}
		case (r == leftSingle || r == rightSingle) && straightSingle && !curlySingle:
			r = '\''
		case (r == leftDouble || r == rightDouble) && straightDouble && !curlyDouble:
			r = '"'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// opens reports whether a quote after prev opens a quotation: at the start,
// after white space or an opening bracket or dash.
func opens(prev rune) bool {
	return prev == 0 || unicode.IsSpace(prev) || strings.ContainsRune("([{<—–-", prev)
}
