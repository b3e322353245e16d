package udiff

import (
	"hash/maphash"
	"sort"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Change is one changed block of a line diff: old[OldStart:OldEnd] became
// new[NewStart:NewEnd]. Offsets are in bytes and fall at line starts (or
// at the end of a text); either side may be empty.
type Change struct {
	OldStart, OldEnd, NewStart, NewEnd int
}

// GapSize bounds what go-diff is given: a stretch of changed lines (old
// and new bytes together) between two anchors up to this size is diffed
// line by line, a larger one is one replacement. A minimal diff of a large
// stretch that changed everywhere costs seconds and shows nothing more
// useful; a large file with a few scattered changes is cut into small
// stretches by its anchors first.
const GapSize = 128 << 10

// Changes returns the changed blocks of the line diff of old and new, in
// order. The common leading and trailing lines are left out first; a
// larger middle is split at anchors (lines that occur exactly once in
// both texts, in the same order: the idea of patience diff) so that each
// stretch between two anchors is small, and only those stretches are
// diffed with go-diff. Time and memory stay proportional to the texts, and
// scattered changes in a large file stay scattered small blocks rather
// than one block of everything between the first and the last.
func Changes(old, new string) []Change {
	if old == new {
		return nil
	}
	c := changer{old: old, new: new}
	c.region(0, len(old), 0, len(new), true)
	return c.out
}

// changer collects the changes of old and new.
type changer struct {
	old, new string
	out      []Change
	// splits counts the regions split by middleAnchor: each split scans
	// its region, so past maxSplits the rest is left to anchored.
	splits int
}

// maxSplits bounds the middle splits of one diff.
const maxSplits = 64

// add appends a change, merging it with the previous one when they touch.
func (c *changer) add(ch Change) {
	if ch.OldStart == ch.OldEnd && ch.NewStart == ch.NewEnd {
		return
	}
	if n := len(c.out); n > 0 && c.out[n-1].OldEnd == ch.OldStart && c.out[n-1].NewEnd == ch.NewStart {
		c.out[n-1].OldEnd, c.out[n-1].NewEnd = ch.OldEnd, ch.NewEnd
		return
	}
	c.out = append(c.out, ch)
}

// region finds the changes between old[o0:o1] and new[n0:n1], both made of
// whole lines; anchor allows splitting it at unique lines.
func (c *changer) region(o0, o1, n0, n1 int, anchor bool) {
	pre, suf := CommonLines(c.old[o0:o1], c.new[n0:n1])
	o0, n0 = o0+pre, n0+pre
	o1, n1 = o1-suf, n1-suf
	switch {
	case o0 == o1 || n0 == n1:
		c.add(Change{o0, o1, n0, n1})
	case (o1-o0)+(n1-n0) <= GapSize:
		c.lineDiff(o0, o1, n0, n1)
	case anchor:
		if oa, na, ok := c.middleAnchor(o0, o1, n0, n1); ok {
			c.splits++
			// Split at one line in the middle first: a few scans and no
			// memory, and the common lines around it are trimmed in each
			// half, so scattered changes in a large file cost little.
			end := oa + strings.IndexByte(c.old[oa:o1], '\n') + 1
			c.region(o0, oa, n0, na, true)
			c.region(end, o1, na+(end-oa), n1, true)
			return
		}
		c.anchored(o0, o1, n0, n1)
	default:
		c.add(Change{o0, o1, n0, n1})
	}
}

// middleTries is how many lines from the middle of a region middleAnchor
// tries before leaving the region to anchored.
const middleTries = 8

// middleAnchor looks for a line near the middle of old[o0:o1] that occurs
// exactly once there and exactly once in new[n0:n1], and returns where it
// starts in each. Short lines (braces, blank lines) are passed over: they
// rarely occur once. A line missing from the new text ends the search.
func (c *changer) middleAnchor(o0, o1, n0, n1 int) (oldAt, newAt int, ok bool) {
	if c.splits >= maxSplits {
		return 0, 0, false
	}
	a, b := c.old[o0:o1], c.new[n0:n1]
	at := strings.LastIndexByte(a[:len(a)/2], '\n') + 1
	for try := 0; try < middleTries && at < len(a); try++ {
		end := strings.IndexByte(a[at:], '\n')
		if end < 0 {
			return 0, 0, false
		}
		line := a[at : at+end+1]
		if len(line) >= 16 {
			if i, once := onlyLine(a, line); once && i == at {
				j, once := onlyLine(b, line)
				if once {
					return o0 + at, n0 + j, true
				}
				if j < 0 {
					// Gone from the new text: the middle itself changed,
					// so nearby lines likely did too.
					return 0, 0, false
				}
			}
		}
		at += end + 1
	}
	return 0, 0, false
}

// onlyLine returns where line (ending in a newline) starts in text, as a
// whole line, and whether it occurs exactly once there.
func onlyLine(text, line string) (at int, once bool) {
	at = -1
	for from := 0; from < len(text); {
		i := strings.Index(text[from:], line)
		if i < 0 {
			break
		}
		i += from
		from = i + 1
		if i > 0 && text[i-1] != '\n' {
			continue
		}
		if at >= 0 {
			return at, false
		}
		at = i
		from = i + len(line)
	}
	return at, at >= 0
}

// lineDiff diffs a small region line by line with go-diff.
func (c *changer) lineDiff(o0, o1, n0, n1 int) {
	dmp := diffmatchpatch.New()
	a, b, table := dmp.DiffLinesToRunes(c.old[o0:o1], c.new[n0:n1])
	diffs := dmp.DiffCharsToLines(dmp.DiffMainRunes(a, b, false), table)
	o, n := o0, n0
	for _, d := range diffs {
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			o, n = o+len(d.Text), n+len(d.Text)
		case diffmatchpatch.DiffDelete:
			c.add(Change{o, o + len(d.Text), n, n})
			o += len(d.Text)
		case diffmatchpatch.DiffInsert:
			c.add(Change{o, o, n, n + len(d.Text)})
			n += len(d.Text)
		}
	}
}

// anchored splits a large region at its anchors and diffs what lies
// between them; a region without anchors is one replacement.
//
// Only lines that may occur on both sides get an entry: a filter of the new
// side's line hashes (a few bits per line) passes over the old lines that
// occur nowhere in the new text, so a rewrite of every line costs two hash
// passes and the filter, not tables the size of the file, whose pages are
// each faulted in for the first time.
func (c *changer) anchored(o0, o1, n0, n1 int) {
	seed := maphash.MakeSeed()
	inNew := newLineFilter(strings.Count(c.new[n0:n1], "\n") + 1)
	eachLine(c.new, n0, n1, func(at, end int) { inNew.add(maphash.String(seed, c.new[at:end])) })

	// How often each candidate line occurs on each side, and where, keyed
	// by a hash of the line (no copies of the text); a collision only costs
	// an anchor, as candidates are compared as text below.
	type seen struct {
		oldCount, newCount int32
		newAt              int
	}
	type candidate struct {
		hash    uint64
		at, end int
	}
	var olds []candidate
	counts := map[uint64]seen{}
	eachLine(c.old, o0, o1, func(at, end int) {
		h := maphash.String(seed, c.old[at:end])
		if !inNew.has(h) {
			return
		}
		olds = append(olds, candidate{h, at, end})
		e := counts[h]
		e.oldCount++
		counts[h] = e
	})
	if len(olds) == 0 {
		c.add(Change{o0, o1, n0, n1})
		return
	}
	eachLine(c.new, n0, n1, func(at, end int) {
		h := maphash.String(seed, c.new[at:end])
		if e, ok := counts[h]; ok && e.oldCount == 1 {
			e.newCount++
			e.newAt = at
			counts[h] = e
		}
	})
	// Lines unique on both sides, in old order, then the longest run of
	// them that is in order on the new side too.
	var pairs []anchor
	for _, o := range olds {
		e := counts[o.hash]
		if e.oldCount == 1 && e.newCount == 1 && c.old[o.at:o.end] == c.new[e.newAt:min(e.newAt+o.end-o.at, n1)] {
			pairs = append(pairs, anchor{old: o.at, new: e.newAt, len: o.end - o.at})
		}
	}
	counts, olds = nil, nil
	po, pn := o0, n0
	for _, a := range increasing(pairs) {
		c.region(po, a.old, pn, a.new, false)
		po, pn = a.old+a.len, a.new+a.len
	}
	c.region(po, o1, pn, n1, false)
}

// eachLine calls f with the start and end (past its newline) of each line
// of text[from:to].
func eachLine(text string, from, to int, f func(at, end int)) {
	for off := from; off < to; {
		end := to
		if i := strings.IndexByte(text[off:to], '\n'); i >= 0 {
			end = off + i + 1
		}
		f(off, end)
		off = end
	}
}

// lineFilter is a Bloom filter of line hashes, two bits per line out of
// about sixteen: has is false for a line never added, and true for about
// one in a hundred of those.
type lineFilter struct {
	bits []uint64
	mask uint64
}

func newLineFilter(lines int) lineFilter {
	n := uint64(1024)
	for n < uint64(lines)*16 {
		n <<= 1
	}
	return lineFilter{bits: make([]uint64, n/64), mask: n - 1}
}

func (f lineFilter) add(h uint64) {
	a, b := h&f.mask, (h>>32)&f.mask
	f.bits[a/64] |= 1 << (a % 64)
	f.bits[b/64] |= 1 << (b % 64)
}

func (f lineFilter) has(h uint64) bool {
	a, b := h&f.mask, (h>>32)&f.mask
	return f.bits[a/64]&(1<<(a%64)) != 0 && f.bits[b/64]&(1<<(b%64)) != 0
}

// anchor is a line unique in both texts: where it starts in each, and its
// length.
type anchor struct{ old, new, len int }

// increasing returns the longest subsequence of pairs (sorted by old)
// whose new indexes increase (patience sorting, n log n).
func increasing(pairs []anchor) []anchor {
	var tails []int // index into pairs of the smallest tail of each length
	prev := make([]int, len(pairs))
	for i, p := range pairs {
		k := sort.Search(len(tails), func(k int) bool { return pairs[tails[k]].new >= p.new })
		prev[i] = -1
		if k > 0 {
			prev[i] = tails[k-1]
		}
		if k == len(tails) {
			tails = append(tails, i)
		} else {
			tails[k] = i
		}
	}
	out := make([]anchor, len(tails))
	for i, k := len(tails)-1, -1; i >= 0; i-- {
		if k < 0 {
			k = tails[len(tails)-1]
		} else {
			k = prev[k]
		}
		out[i] = pairs[k]
	}
	return out
}
