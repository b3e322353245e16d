package search

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolhost/toolhost/internal/visible"
)

// maxLineBytes is how much of one matching line Grep shows; minified files
// would otherwise flood the result with one line.
const maxLineBytes = 500

// fileHits is what a backend found in one file. Both backends fill it the
// same way (through addMatch and addContext), so the output cannot depend on
// which one ran.
type fileHits struct {
	path string
	// count is the number of matches: matching lines, where a match that
	// spans lines (multiline) counts once.
	count int
	// mtime orders files_with_matches.
	mtime time.Time
	// lines are the matching and context lines in order (content mode).
	lines []hitLine
	// bytes is the size of the text in lines, for maxCollectedBytes.
	bytes int64
}

// hitLine is one line of content output.
type hitLine struct {
	num   int
	text  string
	match bool
	// parts are the non-empty matched texts on this line (for -o).
	parts []string
}

// addMatch records one match: text holds the whole lines it spans, starting
// at line first; subs are the byte ranges of the matched parts within text.
func (h *fileHits) addMatch(first int, text string, subs [][2]int) {
	h.count++
	h.bytes += int64(len(text))
	text = strings.TrimSuffix(text, "\n")
	lines := strings.Split(text, "\n")
	start := len(h.lines)
	for i, l := range lines {
		h.lines = append(h.lines, hitLine{num: first + i, text: strings.TrimSuffix(l, "\r"), match: true})
	}
	for _, s := range subs {
		if s[1] <= s[0] || s[1] > len(text)+1 {
			continue
		}
		end := min(s[1], len(text))
		idx := strings.Count(text[:s[0]], "\n")
		for j, piece := range strings.Split(text[s[0]:end], "\n") {
			piece = strings.TrimSuffix(piece, "\r")
			if piece != "" && start+idx+j < len(h.lines) {
				h.lines[start+idx+j].parts = append(h.lines[start+idx+j].parts, piece)
			}
		}
	}
}

// addContext records one context line.
func (h *fileHits) addContext(num int, text string) {
	h.bytes += int64(len(text))
	text = strings.TrimSuffix(strings.TrimSuffix(text, "\n"), "\r")
	h.lines = append(h.lines, hitLine{num: num, text: text})
}

// cutLine shortens a line longer than maxLineBytes at a character boundary.
func cutLine(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= maxLineBytes {
		return s
	}
	cut := maxLineBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf(" [… %d more bytes of this line]", len(s)-cut)
}

// formatGrep renders the hits of a query the same way whichever backend
// found them: files newest first, counts and lines by path; then offset and
// head_limit (0 = no limit) select the entries shown.
func formatGrep(q *grepQuery, hits []*fileHits, lineNumbers bool, limit, offset int) (string, GrepOutput) {
	out := GrepOutput{Mode: q.mode, Filenames: []string{}}
	var entries []string
	// byKind orders by grep.priority's kinds first, when set.
	byKind := func(a, b *fileHits) int {
		if q.rank == nil {
			return 0
		}
		return q.rank(a.path) - q.rank(b.path)
	}
	byPath := func(a, b *fileHits) int {
		if c := byKind(a, b); c != 0 {
			return c
		}
		return strings.Compare(a.path, b.path)
	}
	switch q.mode {
	case ModeFilesWithMatches:
		slices.SortFunc(hits, func(a, b *fileHits) int {
			if c := byKind(a, b); c != 0 {
				return c
			}
			if c := b.mtime.Compare(a.mtime); c != 0 {
				return c
			}
			return strings.Compare(a.path, b.path)
		})
		for _, h := range hits {
			entries = append(entries, h.path)
		}
	case ModeCount:
		slices.SortFunc(hits, byPath)
		for _, h := range hits {
			entries = append(entries, visible.Name(h.path)+":"+strconv.Itoa(h.count))
		}
	case ModeContent:
		slices.SortFunc(hits, byPath)
		entries = contentLines(q, hits, lineNumbers)
	}
	total := len(entries)
	shown := entries[min(offset, total):]
	if limit > 0 && len(shown) > limit {
		shown = shown[:limit]
	}
	more := total - min(offset, total) - len(shown)
	// As in Claude Code, appliedLimit says a limit cut the results; it is
	// absent when everything fit.
	if limit > 0 && more > 0 {
		out.AppliedLimit = limit
	}
	out.AppliedOffset = offset

	var b strings.Builder
	switch q.mode {
	case ModeFilesWithMatches:
		out.Filenames = append(out.Filenames, shown...)
		out.NumFiles = len(shown)
		if total == 0 {
			b.WriteString("No files found.")
			break
		}
		fmt.Fprintf(&b, "Found %s", plural(total, "file", "files"))
		if len(shown) < total {
			fmt.Fprintf(&b, " (showing %d)", len(shown))
		}
		b.WriteString("\n")
		b.WriteString(nameLines(shown))
	case ModeCount:
		matches := 0
		for _, h := range hits {
			matches += h.count
		}
		out.NumFiles, out.NumMatches = len(hits), matches
		if total == 0 {
			b.WriteString("No matches found.")
			break
		}
		b.WriteString(strings.Join(shown, "\n"))
		fmt.Fprintf(&b, "\n\nFound %s in %s.", plural(matches, "match", "matches"), plural(len(hits), "file", "files"))
	case ModeContent:
		out.NumFiles = len(hits)
		for _, h := range hits {
			out.Filenames = append(out.Filenames, h.path)
		}
		out.NumLines = len(shown)
		out.Content = strings.Join(shown, "\n")
		if total == 0 {
			b.WriteString("No matches found.")
			break
		}
		b.WriteString(out.Content)
	}
	switch {
	case total > 0 && len(shown) == 0:
		fmt.Fprintf(&b, "\n\n[Nothing at offset %d: there are only %d entries.]", offset, total)
	case more > 0:
		fmt.Fprintf(&b, "\n\n[%d more entries not shown. Pass offset: %d to see the next ones, or narrow the search.]", more, min(offset, total)+len(shown))
	}
	return b.String(), out
}

// contentLines renders matching and context lines, ripgrep style:
// path:line:text for matches, path-line-text for context, and "--" between
// groups that are not adjacent when context was asked for.
func contentLines(q *grepQuery, hits []*fileHits, lineNumbers bool) []string {
	withContext := q.before > 0 || q.after > 0
	var out []string
	for fi, h := range hits {
		name := visible.Name(h.path)
		for i, l := range h.lines {
			if withContext && (i > 0 && l.num != h.lines[i-1].num+1 || i == 0 && fi > 0) {
				out = append(out, "--")
			}
			sep := "-"
			if l.match {
				sep = ":"
			}
			prefix := name + sep
			if lineNumbers {
				prefix += strconv.Itoa(l.num) + sep
			}
			if q.onlyMatching {
				for _, p := range l.parts {
					out = append(out, prefix+cutLine(p))
				}
				continue
			}
			out = append(out, prefix+cutLine(l.text))
		}
	}
	return out
}

// nameLines lists paths one per line, each as visible.Name shows it, so
// that a name holding a newline is still one line of the listing.
func nameLines(paths []string) string {
	var b strings.Builder
	for i, p := range paths {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(visible.Name(p))
	}
	return b.String()
}
