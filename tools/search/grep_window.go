package search

import (
	"container/heap"
	"math"
	"strings"
)

// window collects what a search found, file by file as a backend reports
// it. In content mode it keeps only the lines the result can show: a
// pattern matching most lines of a big tree (663,000 lines for "e" on the
// 20,000-file benchmark tree) would otherwise have every line copied, held
// and formatted for the head_limit's 250 to be shown. The lines past the
// window are counted, not kept, so the result still says exactly how many
// entries it left out.
//
// The result shows entries (lines, -o parts, "--" between context groups)
// in its order (files by grep.priority's kind, then path; lines in file
// order) from offset to offset+head_limit. So of each file only its first
// need = offset+head_limit entries can be shown, and none of a file once
// the files held before it in that order have need entries: the window
// holds files in a heap whose top is the last in the result's order, and
// drops the top's lines as soon as the others reach need. Files that
// arrive past the top then are only counted. The order in which rg reports
// files does not matter.
type window struct {
	// need is offset+head_limit; 0 keeps every line (head_limit 0).
	need         int
	content      bool
	withContext  bool
	onlyMatching bool
	multiline    bool

	// files are all the files with hits, in the order found.
	files  []*fileHits
	byPath map[string]*fileHits
	// last is the file of the previous line: rg reports a file's lines
	// together, so this spares a map look-up per line.
	last *fileHits

	// held are the files whose lines are kept, the last in the result's
	// order on top.
	held heldFiles
	// heldEntries and heldBytes are the entries and the text of the lines
	// kept, over the held files.
	heldEntries int
	heldBytes   int64
}

// newWindow is the collector for q's results.
func newWindow(q *grepQuery) *window {
	return &window{
		need:         q.need,
		content:      q.mode == ModeContent,
		withContext:  q.before > 0 || q.after > 0,
		onlyMatching: q.onlyMatching,
		multiline:    q.multiline,
		byPath:       map[string]*fileHits{},
		held:         heldFiles{order: resultOrder(q)},
	}
}

// windowNeed is how many entries of the result's order a window must be
// able to show for offset and limit (0 = no limit): 0 means all.
func windowNeed(limit, offset int) int {
	if limit <= 0 {
		return 0
	}
	if offset > math.MaxInt-limit {
		return math.MaxInt
	}
	return offset + limit
}

// file returns the hits of path, adding them when path is new. path is
// only read: it may be a buffer the caller reuses.
func (w *window) file(path []byte) *fileHits {
	if w.last != nil && w.last.path == string(path) {
		return w.last
	}
	h := w.byPath[string(path)]
	if h == nil {
		h = &fileHits{path: string(path)}
		w.byPath[h.path] = h
		w.start(h)
	}
	w.last = h
	return h
}

// start adds h, a file not seen before, and decides whether its lines are
// kept.
func (w *window) start(h *fileHits) {
	w.files = append(w.files, h)
	if !w.content {
		return
	}
	if w.need > 0 && w.heldEntries >= w.need && len(w.held.files) > 0 && w.held.order(h, w.held.files[0]) > 0 {
		return // past the window from the start: only counted
	}
	h.held = true
	heap.Push(&w.held, h)
}

// add takes h whole, as the Go backend finds a file: its lines are counted
// and what the window can show of them kept.
func (w *window) add(h *fileHits) {
	lines := h.lines
	h.lines = nil
	w.start(h)
	for _, l := range lines {
		w.put(h, l)
	}
}

// line records one matching or context line of h, as ripgrep reports it
// without -o: one entry. text is only read.
func (w *window) line(h *fileHits, num int, text []byte, match bool) {
	entries := 1
	if w.withContext && h.lastLine > 0 && num != h.lastLine+1 {
		entries++ // the "--" before a new group
	}
	h.lastLine = num
	h.entries += entries
	if !w.keeps(h) {
		return
	}
	s := cutLine(trimCR(string(text)))
	h.lines = append(h.lines, hitLine{num: num, text: s, match: match})
	w.kept(h, entries, len(s))
}

// put records one line of h as the backends build it (addMatch,
// addContext): the text and parts whole.
func (w *window) put(h *fileHits, l hitLine) {
	entries := 1
	if w.onlyMatching {
		entries = len(l.parts)
	}
	if w.withContext && h.lastLine > 0 && l.num != h.lastLine+1 {
		entries++
	}
	h.lastLine = l.num
	h.entries += entries
	if !w.keeps(h) {
		return
	}
	size := 0
	if w.onlyMatching {
		l.text = ""
		for i, p := range l.parts {
			l.parts[i] = cutLine(p)
			size += len(l.parts[i])
		}
	} else {
		l.text = cutLine(l.text)
		l.parts = nil
		size = len(l.text)
	}
	h.lines = append(h.lines, l)
	w.kept(h, entries, size)
}

// keeps says whether the next line of h is kept: h is held and its lines
// kept so far do not fill the window alone.
func (w *window) keeps(h *fileHits) bool {
	return w.content && h.held && (w.need == 0 || h.heldEntries < w.need)
}

// kept accounts for a line just kept in h and drops the files the window
// no longer reaches.
func (w *window) kept(h *fileHits, entries, size int) {
	h.heldEntries += entries
	h.heldBytes += int64(size)
	w.heldEntries += entries
	w.heldBytes += int64(size)
	if w.need == 0 {
		return
	}
	for len(w.held.files) > 1 {
		top := w.held.files[0]
		if w.heldEntries-top.heldEntries < w.need {
			return
		}
		heap.Pop(&w.held)
		w.heldEntries -= top.heldEntries
		w.heldBytes -= top.heldBytes
		top.held, top.lines, top.heldEntries, top.heldBytes = false, nil, 0, 0
	}
}

// heldFiles is a heap of files, the last in order on top.
type heldFiles struct {
	order func(a, b *fileHits) int
	files []*fileHits
}

func (f heldFiles) Len() int           { return len(f.files) }
func (f heldFiles) Less(i, j int) bool { return f.order(f.files[i], f.files[j]) > 0 }
func (f heldFiles) Swap(i, j int)      { f.files[i], f.files[j] = f.files[j], f.files[i] }
func (f *heldFiles) Push(x any)        { f.files = append(f.files, x.(*fileHits)) }
func (f *heldFiles) Pop() any {
	last := f.files[len(f.files)-1]
	f.files = f.files[:len(f.files)-1]
	return last
}

// resultOrder is the order of files in count and content results: by
// grep.priority's kinds first, when set, then by path.
func resultOrder(q *grepQuery) func(a, b *fileHits) int {
	return func(a, b *fileHits) int {
		if q.rank != nil {
			if c := q.rank(a.path) - q.rank(b.path); c != 0 {
				return c
			}
		}
		return strings.Compare(a.path, b.path)
	}
}
