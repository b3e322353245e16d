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

// fileHits is what a backend found in one file. Both backends hand it to
// the same window (grep_window.go), so the output cannot depend on which
// one ran.
type fileHits struct {
	path string
	// count is the number of matches: matching lines, where a match that
	// spans lines (multiline) counts once.
	count int
	// mtime orders files_with_matches.
	mtime time.Time
	// lines are the matching and context lines in order (content mode):
	// as a backend builds them (addMatch, addContext), all of them; once
	// in a window, the first ones the result can show, as shown (cut to
	// maxLineBytes).
	lines []hitLine
	// entries counts the content entries of all the file's lines (lines,
	// -o parts, "--" between groups), kept or not; lastLine is the number
	// of the last line counted.
	entries, lastLine int
	// held: the window keeps this file's lines (heldEntries entries of
	// heldBytes bytes so far).
	held        bool
	heldEntries int
	heldBytes   int64
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
	// byKind orders by grep.priority's kinds first, when set.
	byKind := func(a, b *fileHits) int {
		if q.rank == nil {
			return 0
		}
		return q.rank(a.path) - q.rank(b.path)
	}
	// total counts all the entries; only those from offset to
	// offset+limit are rendered.
	total := len(hits)
	var lines []string
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
	case ModeCount:
		slices.SortFunc(hits, resultOrder(q))
	case ModeContent:
		slices.SortFunc(hits, resultOrder(q))
		lines, total = contentLines(q, hits, lineNumbers, windowNeed(limit, offset))
	}
	from, to := min(offset, total), total
	if limit > 0 {
		to = from + min(limit, total-from)
	}
	var shown []string
	switch q.mode {
	case ModeFilesWithMatches:
		for _, h := range hits[from:to] {
			shown = append(shown, h.path)
		}
	case ModeCount:
		for _, h := range hits[from:to] {
			shown = append(shown, visible.Name(h.path)+":"+strconv.Itoa(h.count))
		}
	case ModeContent:
		// lines holds at least the first offset+limit entries (the
		// window's promise); min only keeps a broken promise from
		// failing the call.
		shown = lines[min(from, len(lines)):min(to, len(lines))]
	}
	more := total - to
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
		out.NumFiles, out.TotalFiles = len(shown), total
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
		// As Claude Code's, content mode names no files (numFiles 0,
		// filenames empty): the lines carry their paths, and listing every
		// matching file cost a megabyte of JSON for a pattern that matches
		// in all 20,000 files of a tree.
		out.NumLines, out.TotalLines = len(shown), total
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

// contentLines renders the first need (0: all) entries of the matching
// and context lines a window kept, ripgrep style: path:line:text for
// matches, path-line-text for context, and "--" between groups that are
// not adjacent when context was asked for. total counts all the entries,
// those the window did not keep included.
func contentLines(q *grepQuery, hits []*fileHits, lineNumbers bool, need int) (out []string, total int) {
	withContext := q.before > 0 || q.after > 0
	for fi, h := range hits {
		total += h.entries
		if withContext && fi > 0 {
			total++
		}
	}
	if need == 0 {
		need = total
	}
	for fi, h := range hits {
		if len(out) >= need {
			break
		}
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
					out = append(out, prefix+p)
				}
				continue
			}
			out = append(out, prefix+l.text)
		}
	}
	return out, total
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
