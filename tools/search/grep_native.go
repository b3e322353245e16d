package search

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"
	xunicode "golang.org/x/text/encoding/unicode"

	"github.com/toolhost/toolhost/internal/ignore"
	"github.com/toolhost/toolhost/internal/visible"
)

// nativeGrep searches in Go when ripgrep is not installed: a parallel
// gitignore-aware walk (internal/ignore), Go's regexp, and a literal
// prefilter that skips files and lines without the pattern's required
// literal. It mirrors ripgrep's rules (globs override ignore files, types,
// binary files skipped, a UTF-8 byte-order mark ignored, line-at-a-time
// matching unless multiline, Unicode \w \d \s). Known differences: \b is
// ASCII-based, and invalid UTF-8 bytes can match a negated class.
type nativeGrep struct{}

func (nativeGrep) name() string { return "go" }

// compiledQuery is a query prepared for searching.
type compiledQuery struct {
	*grepQuery
	re *regexp.Regexp
	// literal must occur in any matching line (nil when unknown).
	literal []byte
	// folded: literal is lower-case ASCII and must be looked for in the
	// ASCII-lowered text (case-insensitive search).
	folded bool
	globs  []fileGlob
	// anyWhitelist: some glob is positive, so files matching none are skipped.
	anyWhitelist bool
}

// fileGlob is one --glob, in ripgrep's (gitignore) meaning.
type fileGlob struct {
	pattern  string
	negated  bool
	dirOnly  bool
	basename bool // no slash: matched against the name at any depth
}

func (nativeGrep) search(ctx context.Context, q *grepQuery) (searchResult, error) {
	cq, err := compileQuery(q)
	if err != nil {
		return searchResult{}, err
	}
	found, _, err := cq.search(ctx, searchBudget{})
	return found, err
}

// searchBudget bounds a search in Go that ripgrep takes over when the
// folder is bigger: past files files or bytes bytes searched, the search
// stops and reports it went over. Zero values bound nothing.
type searchBudget struct {
	files int64
	bytes int64
}

// search runs the compiled query; over says it stopped at the budget, and
// then found is not the whole answer.
func (cq *compiledQuery) search(ctx context.Context, budget searchBudget) (found searchResult, over bool, err error) {
	q := cq.grepQuery
	if q.file != nil {
		// A single file, opened through the jail; a file named on the
		// command line is searched whatever the ignore files say.
		w := newWindow(q)
		if h := cq.searchOpen(q.root, q.file); h != nil {
			if q.mode == ModeFilesWithMatches {
				if st, err := q.file.Stat(); err == nil {
					h.mtime = st.ModTime()
				}
			}
			w.add(h)
		}
		return searchResult{hits: w.files}, false, nil
	}
	dir := q.dir
	if dir == nil {
		if dir, err = os.OpenRoot(q.root); err != nil {
			return searchResult{}, false, err
		}
		defer dir.Close()
	}
	var files, size atomic.Int64
	var went atomic.Bool
	overBudget := func(f ignore.File) bool {
		if budget.files > 0 && files.Add(1) > budget.files {
			return true
		}
		if budget.bytes > 0 {
			info, err := f.Entry.Info()
			return err != nil || size.Add(info.Size()) > budget.bytes
		}
		return false
	}
	// mu guards w, stopped and unsearched.
	var mu sync.Mutex
	w := newWindow(q)
	stopped := false
	var unsearched []string
	unreadable := func(rel string, err error) {
		var errno syscall.Errno
		why := err.Error()
		if errors.As(err, &errno) {
			why = errno.Error()
		}
		mu.Lock()
		unsearched = append(unsearched, visible.Name(filepath.Join(q.root, filepath.FromSlash(rel)))+": "+why)
		mu.Unlock()
	}
	err = ignore.WalkRoot(ctx, dir, q.root, ignore.Options{Override: cq.override, Unreadable: unreadable}, func(f ignore.File) error {
		if overBudget(f) {
			went.Store(true)
			return ignore.ErrStop
		}
		h := cq.searchEntry(f)
		if h == nil {
			return nil
		}
		if q.mode == ModeFilesWithMatches {
			if mtime, err := f.ModTime(); err == nil {
				h.mtime = mtime
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			return ignore.ErrStop
		}
		w.add(h)
		if w.heldBytes > maxCollectedBytes {
			stopped = true
			return ignore.ErrStop
		}
		return nil
	})
	if err != nil {
		return searchResult{}, false, err
	}
	if went.Load() {
		return searchResult{}, true, nil
	}
	slices.Sort(unsearched)
	return searchResult{hits: w.files, stopped: stopped, unsearched: unsearched}, false, nil
}

// mmapThreshold is the size from which files are mapped rather than read,
// so a huge file does not become a huge allocation.
var mmapThreshold int64 = 8 << 20

// searchEntry searches one file the walk found, opened relative to its
// folder (ignore.File.Open): unreadable and binary (NUL) files have no
// hits. Big files are mapped into memory; a mapped file truncated under
// the search faults, and that fault is turned into "no hits" instead of a
// crash. The text kept in hits is copied out of the file's bytes.
func (cq *compiledQuery) searchEntry(e ignore.File) (h *fileHits) {
	f, err := e.Open()
	if err != nil {
		return nil
	}
	defer f.Close()
	return cq.searchOpen(e.Path, f)
}

// searchOpen is searchPath on the file path opened as f (read from its
// start, whatever f's offset).
func (cq *compiledQuery) searchOpen(path string, f *os.File) (h *fileHits) {
	info, err := f.Stat()
	if err != nil {
		return nil
	}
	size := info.Size()
	if size >= mmapThreshold && size == int64(int(size)) {
		if data, unmap, err := mapFile(f, int(size)); err == nil {
			defer unmap()
			defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
			defer func() {
				if recover() != nil {
					h = nil
				}
			}()
			return cq.searchData(path, data)
		}
	}
	data := make([]byte, size)
	n, err := io.ReadFull(io.NewSectionReader(f, 0, size), data)
	if err != nil && err != io.ErrUnexpectedEOF {
		return nil
	}
	return cq.searchData(path, data[:n])
}

// Byte-order marks ripgrep acts on.
var (
	bomUTF8    = []byte{0xEF, 0xBB, 0xBF}
	bomUTF16LE = []byte{0xFF, 0xFE}
	bomUTF16BE = []byte{0xFE, 0xFF}
)

// searchData searches the bytes of a file unless they are binary. As
// ripgrep does, a UTF-8 byte-order mark is skipped and a file with a UTF-16
// one is searched as its UTF-8 transcoding.
func (cq *compiledQuery) searchData(path string, data []byte) *fileHits {
	switch {
	case bytes.HasPrefix(data, bomUTF8):
		data = data[len(bomUTF8):]
	case bytes.HasPrefix(data, bomUTF16LE), bytes.HasPrefix(data, bomUTF16BE):
		decoded, err := xunicode.UTF16(xunicode.LittleEndian, xunicode.ExpectBOM).NewDecoder().Bytes(data)
		if err != nil {
			return nil
		}
		data = decoded
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return nil
	}
	return cq.searchFile(path, data)
}

// compileQuery compiles the pattern with ripgrep's line semantics: ^ and $
// match at line ends; . matches a newline only in multiline mode.
func compileQuery(q *grepQuery) (*compiledQuery, error) {
	flags := "(?m)"
	if q.multiline {
		flags = "(?ms)"
	}
	if q.ignoreCase {
		flags = flags[:len(flags)-1] + "i)"
	}
	re, err := regexp.Compile(flags + unicodeClasses(q.pattern))
	if err != nil {
		return nil, errorf("the pattern is not a valid regular expression: %v. Fix the pattern (escape special characters such as ( [ { with a backslash to match them literally).", err)
	}
	cq := &compiledQuery{grepQuery: q, re: re}
	parsed, err := syntax.Parse(q.pattern, syntax.Perl)
	if err == nil && !q.multiline && hasNewlineLiteral(parsed) {
		// As ripgrep: a line-at-a-time search can never match a newline.
		return nil, errorf("the pattern contains a literal newline (\\n), which cannot match within one line. Set multiline: true to match across lines.")
	}
	if err == nil && !q.ignoreCase {
		if lit := requiredLiteral(parsed.Simplify(), false); len(lit) >= 2 {
			cq.literal = []byte(lit)
		}
	}
	if q.ignoreCase {
		if folded, err := syntax.Parse(q.pattern, syntax.Perl|syntax.FoldCase); err == nil {
			if lit := requiredLiteral(folded.Simplify(), true); len(lit) >= 2 && foldsASCIIOnly(lit) {
				cq.literal, cq.folded = []byte(strings.ToLower(lit)), true
			}
		}
	}
	for _, g := range q.globs {
		fg := fileGlob{pattern: g}
		if strings.HasPrefix(fg.pattern, "!") {
			fg.negated, fg.pattern = true, fg.pattern[1:]
		}
		if strings.HasSuffix(fg.pattern, "/") {
			fg.dirOnly, fg.pattern = true, strings.TrimSuffix(fg.pattern, "/")
		}
		// As in .gitignore: a leading slash anchors the glob at the root, a
		// glob without a slash (or only "**/" in front) matches names at
		// any depth, any other is matched against the whole relative path.
		if rest, ok := strings.CutPrefix(fg.pattern, "**/"); ok && !strings.Contains(rest, "/") {
			fg.pattern, fg.basename = rest, true
		} else if strings.HasPrefix(fg.pattern, "/") {
			fg.pattern = fg.pattern[1:]
		} else if !strings.Contains(fg.pattern, "/") {
			fg.basename = true
		}
		if fg.pattern == "" {
			continue
		}
		if !fg.negated {
			cq.anyWhitelist = true
		}
		cq.globs = append(cq.globs, fg)
	}
	return cq, nil
}

// Unicode meanings of Perl classes, as in ripgrep's regex engine (Go's
// \w, \d and \s are ASCII-only). Inside brackets they are spliced in
// without brackets; \W, \D and \S inside brackets keep Go's meaning.
const (
	wordClass  = `\p{L}\p{Nl}\p{M}\p{Nd}\p{Pc}\x{200C}\x{200D}`
	spaceClass = `\t\n\v\f\r\x{85}\p{Z}`
)

// perlClass is the Unicode meaning of the Perl class \c, outside brackets
// or (inside) spliced into a bracket expression; ok is false for a letter
// that is no such class.
func perlClass(c byte, inside bool) (repl string, ok bool) {
	if inside {
		switch c {
		case 'w':
			return wordClass, true
		case 'd':
			return `\p{Nd}`, true
		case 's':
			return spaceClass, true
		}
		return "", false
	}
	switch c {
	case 'w':
		return "[" + wordClass + "]", true
	case 'W':
		return "[^" + wordClass + "]", true
	case 'd':
		return `\p{Nd}`, true
	case 'D':
		return `\P{Nd}`, true
	case 's':
		return "[" + spaceClass + "]", true
	case 'S':
		return "[^" + spaceClass + "]", true
	}
	return "", false
}

// unicodeClasses rewrites \w, \d and \s (and their negations) in a
// pattern to their Unicode meanings. \b stays ASCII-based.
func unicodeClasses(pattern string) string {
	if !strings.Contains(pattern, `\`) {
		return pattern
	}
	var b strings.Builder
	inClass := false
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '\\' && i+1 < len(pattern):
			next := pattern[i+1]
			repl, ok := perlClass(next, inClass)
			if ok {
				b.WriteString(repl)
			} else {
				b.WriteByte(c)
				b.WriteByte(next)
			}
			i++
			continue
		case !inClass && c == '[':
			inClass = true
			b.WriteByte(c)
			// A ] right after [ or [^ is a literal.
			if i+1 < len(pattern) && pattern[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(pattern) && pattern[i+1] == ']' {
				b.WriteByte(']')
				i++
			}
			continue
		case inClass && c == '[' && i+1 < len(pattern) && pattern[i+1] == ':':
			// A POSIX class such as [:alpha:] is copied whole.
			if end := strings.Index(pattern[i:], ":]"); end > 0 {
				b.WriteString(pattern[i : i+end+2])
				i += end + 1
				continue
			}
		case inClass && c == ']':
			inClass = false
		}
		b.WriteByte(c)
	}
	return b.String()
}

// hasNewlineLiteral reports whether the pattern spells out a newline.
func hasNewlineLiteral(re *syntax.Regexp) bool {
	if re.Op == syntax.OpLiteral && strings.ContainsRune(string(re.Rune), '\n') {
		return true
	}
	for _, sub := range re.Sub {
		if hasNewlineLiteral(sub) {
			return true
		}
	}
	return false
}

// requiredLiteral returns a literal string that every match contains, or
// "". Case-folded literals count only when fold is set (the caller then
// compares without case).
func requiredLiteral(re *syntax.Regexp, fold bool) string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 && !fold {
			return ""
		}
		return string(re.Rune)
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0], fold)
	case syntax.OpConcat:
		best := ""
		for _, sub := range re.Sub {
			if l := requiredLiteral(sub, fold); len(l) > len(best) {
				best = l
			}
		}
		return best
	}
	return ""
}

// foldsASCIIOnly reports whether a literal's case-insensitive matches are
// all ASCII, so lowering A-Z finds them: ASCII letters other than k and s
// (which also fold to the Kelvin sign and the long s).
func foldsASCIIOnly(lit string) bool {
	for _, c := range []byte(lit) {
		if c >= 0x80 || c == 'k' || c == 'K' || c == 's' || c == 'S' {
			return false
		}
	}
	return true
}

// lowerASCII writes data with A-Z lowered into buf (same offsets).
func lowerASCII(buf, data []byte) []byte {
	buf = append(buf[:0], data...)
	for i, c := range buf {
		if 'A' <= c && c <= 'Z' {
			buf[i] = c + ('a' - 'A')
		}
	}
	return buf
}

// lowerBuffers recycles the buffers of lowerASCII.
var lowerBuffers = sync.Pool{New: func() any { return new([]byte) }}

// override applies --glob and --type as ripgrep does: the last glob that
// matches decides (a whitelisted file skips the ignore files and the type);
// with a positive glob, files matching none are skipped; then the type.
func (cq *compiledQuery) override(rel, name string, isDir bool) ignore.Verdict {
	for i := len(cq.globs) - 1; i >= 0; i-- {
		g := cq.globs[i]
		if g.dirOnly && !isDir {
			continue
		}
		subject := rel
		if g.basename {
			subject = name
		}
		if !doublestar.MatchUnvalidated(g.pattern, subject) {
			continue
		}
		if g.negated {
			return ignore.Exclude
		}
		return ignore.Include
	}
	if isDir {
		return ignore.NoVerdict
	}
	if cq.anyWhitelist {
		return ignore.Exclude
	}
	if cq.typeGlobs != nil && !matchesFileType(cq.typeGlobs, path.Base(name)) {
		return ignore.Exclude
	}
	return ignore.NoVerdict
}

// searchFile returns the hits in one file, or nil when there are none.
func (cq *compiledQuery) searchFile(path string, data []byte) *fileHits {
	// hay is where the literal is looked for: the text, or its lowered copy.
	hay := data
	if cq.folded {
		bp := lowerBuffers.Get().(*[]byte)
		*bp = lowerASCII(*bp, data)
		hay = *bp
		defer lowerBuffers.Put(bp)
	}
	if cq.literal != nil && !bytes.Contains(hay, cq.literal) {
		return nil
	}
	h := &fileHits{path: path}
	firstOnly := cq.mode == ModeFilesWithMatches
	wantText := cq.mode == ModeContent
	if cq.multiline {
		cq.searchMultiline(h, data, firstOnly, wantText)
	} else {
		cq.searchLines(h, data, hay, firstOnly, wantText)
	}
	if h.count == 0 {
		return nil
	}
	if wantText && (cq.before > 0 || cq.after > 0) {
		addContextLines(h, data, cq.before, cq.after)
	}
	return h
}

// searchLines finds matching lines. It searches the whole buffer for the
// next candidate (the literal, or the regexp itself) and then checks the
// candidate's line alone: a line that matches on its own is always found
// this way, because any match within a line is also a match in the buffer.
func (cq *compiledQuery) searchLines(h *fileHits, data, hay []byte, firstOnly, wantText bool) {
	pos, lineNo, counted := 0, 1, 0
	for pos < len(data) {
		var at int
		if cq.literal != nil {
			i := bytes.Index(hay[pos:], cq.literal)
			if i < 0 {
				return
			}
			at = pos + i
		} else {
			loc := cq.re.FindIndex(data[pos:])
			if loc == nil {
				return
			}
			at = pos + loc[0]
		}
		start := bytes.LastIndexByte(data[:at], '\n') + 1
		end := len(data)
		if i := bytes.IndexByte(data[at:], '\n'); i >= 0 {
			end = at + i
		}
		lineNo += bytes.Count(data[counted:start], []byte{'\n'})
		counted = start
		line := data[start:end]
		if wantText && len(line) > maxRgLine {
			// As the ripgrep backend does: not copied, shown as omitted.
			h.addMatch(lineNo, omittedLine(int64(len(line))), nil)
		} else if wantText {
			if locs := cq.re.FindAllIndex(line, -1); locs != nil {
				subs := make([][2]int, len(locs))
				for i, l := range locs {
					subs[i] = [2]int{l[0], l[1]}
				}
				h.addMatch(lineNo, string(line), subs)
			}
		} else if cq.re.Match(line) {
			h.count++
			if firstOnly {
				return
			}
		}
		pos = end + 1
	}
}

// searchMultiline finds matches over the whole buffer; matches that share a
// line form one hit, as in ripgrep.
func (cq *compiledQuery) searchMultiline(h *fileHits, data []byte, firstOnly, wantText bool) {
	locs := cq.re.FindAllIndex(data, -1)
	type group struct {
		start, end int // byte range of the whole lines
		first      int // line number of start
		subs       [][2]int
	}
	var groups []group
	lineNo, counted := 1, 0
	for _, loc := range locs {
		s, e := loc[0], loc[1]
		if s >= len(data) && len(data) > 0 && data[len(data)-1] == '\n' {
			break // an empty match after the final newline is no line
		}
		lastByte := max(e-1, s)
		ls := bytes.LastIndexByte(data[:s], '\n') + 1
		le := len(data)
		if lastByte < len(data) {
			if i := bytes.IndexByte(data[lastByte:], '\n'); i >= 0 {
				le = lastByte + i
			}
		}
		if e > s && data[e-1] == '\n' {
			le = e - 1
		}
		if n := len(groups); n > 0 && ls <= groups[n-1].end {
			g := &groups[n-1]
			g.end = max(g.end, le)
			g.subs = append(g.subs, [2]int{s - g.start, e - g.start})
			continue
		}
		lineNo += bytes.Count(data[counted:ls], []byte{'\n'})
		counted = ls
		groups = append(groups, group{start: ls, end: le, first: lineNo, subs: [][2]int{{s - ls, e - ls}}})
		if firstOnly {
			break
		}
	}
	for _, g := range groups {
		if wantText {
			h.addMatch(g.first, string(data[g.start:g.end]), g.subs)
		} else {
			h.count++
		}
	}
}

// addContextLines adds up to before and after lines of context around the
// matching lines in h, which are in order.
func addContextLines(h *fileHits, data []byte, before, after int) {
	// starts[i] is the offset of line i+1.
	starts := []int{0}
	for i, c := range data {
		if c == '\n' && i+1 < len(data) {
			starts = append(starts, i+1)
		}
	}
	lineText := func(n int) string {
		s := starts[n-1]
		e := len(data)
		if n < len(starts) {
			e = starts[n] - 1
		}
		return string(data[s:e])
	}
	matches := h.lines
	h.lines = nil
	next := 1 // first line not yet shown
	for i := 0; i < len(matches); {
		// A run of consecutive match lines (one or more hits).
		j := i
		for j+1 < len(matches) && matches[j+1].num == matches[j].num+1 {
			j++
		}
		first, last := matches[i].num, matches[j].num
		for n := max(first-before, next, 1); n < first; n++ {
			h.lines = append(h.lines, hitLine{num: n, text: trimCR(lineText(n))})
		}
		h.lines = append(h.lines, matches[i:j+1]...)
		next = last + 1
		limit := min(last+after, len(starts))
		if j+1 < len(matches) {
			limit = min(limit, matches[j+1].num-1)
		}
		for ; next <= limit; next++ {
			h.lines = append(h.lines, hitLine{num: next, text: trimCR(lineText(next))})
		}
		i = j + 1
	}
}

func trimCR(s string) string { return strings.TrimSuffix(strings.TrimSuffix(s, "\n"), "\r") }
