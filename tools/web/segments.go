package web

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A page is converted to Markdown in segments of about segmentBytes of
// HTML, each parsed and converted on its own: the parse tree and the
// converter's bookkeeping take some 45 times the HTML they hold (a node and
// its strings for every <td>), so a 10 MB page of tables converted whole
// took half a gigabyte. A page up to segmentBytes is one segment, converted
// exactly as before.
const segmentBytes = 256 << 10

// maxOpenTags bounds the open elements carried from one segment to the
// next; deeper ones (a page that never closes its tags) are not reopened.
const maxOpenTags = 128

// openTag is an element open where a segment ends, reopened at the start of
// the next so its content keeps its place (a row stays in its table).
type openTag struct {
	atom atom.Atom
	name string
	// raw is the start tag as written, attributes included.
	raw string
	// header is a table's first row as written (at most maxHeaderBytes),
	// repeated where the table is reopened so its columns keep their
	// names; rowStart is where that row began while it is being read.
	header   string
	rowStart int
	rows     int
}

// maxHeaderBytes bounds the header row a reopened table repeats.
const maxHeaderBytes = 8 << 10

// segmenter splits a page at token boundaries: after the end tag of a
// block element once a segment holds segmentBytes, or at any token once it
// holds twice that (a page that is one long paragraph).
type segmenter struct {
	page  string
	z     *html.Tokenizer
	pos   int
	open  []openTag
	limit int
}

func newSegmenter(page string, limit int) *segmenter {
	return &segmenter{page: page, z: html.NewTokenizer(strings.NewReader(page)), limit: limit}
}

// next returns the next segment, prefixed by the start tags of the elements
// open where the previous one ended; ok is false at the end of the page.
func (s *segmenter) next() (segment string, ok bool) {
	if s.pos >= len(s.page) {
		return "", false
	}
	var prefix strings.Builder
	for _, t := range s.open {
		prefix.WriteString(t.raw)
		if t.header != "" {
			prefix.WriteString("<thead>" + t.header + "</thead>")
		}
	}
	start := s.pos
	for {
		tt := s.z.Next()
		if tt == html.ErrorToken {
			s.pos = len(s.page)
			break
		}
		from := s.pos
		s.pos += len(s.z.Raw())
		name, _ := s.z.TagName()
		a := atom.Lookup(name)
		switch tt {
		case html.StartTagToken:
			if a == atom.Tr {
				s.row(from)
			}
			s.started(a, string(name))
		case html.EndTagToken:
			if a == atom.Tr {
				s.row(-1)
			}
			s.ended(string(name))
		}
		size := s.pos - start
		if size >= 2*s.limit || (size >= s.limit && tt == html.EndTagToken && cutsAfter(a)) {
			break
		}
	}
	return prefix.String() + s.page[start:s.pos], true
}

// started records a start tag, closing first what it implies closed (an
// open <li> by the next <li>, a <p> by a block), as the parser would.
func (s *segmenter) started(a atom.Atom, name string) {
	if voidElement(a) {
		return
	}
	if c, ok := impliedEndOf(a); ok {
		s.closeOpen(c.closes, c.scope)
	}
	if len(s.open) < maxOpenTags {
		s.open = append(s.open, openTag{atom: a, name: name, raw: string(s.z.Raw())})
	}
}

// row notes a row's start (at) or end (at < 0) in the innermost open
// table, keeping the table's first row as its header.
func (s *segmenter) row(at int) {
	for i := len(s.open) - 1; i >= 0; i-- {
		t := &s.open[i]
		if t.atom != atom.Table {
			continue
		}
		if t.rows == 1 && t.header == "" {
			end := at
			if end < 0 {
				end = s.pos
			}
			if t.rowStart < end && end-t.rowStart <= maxHeaderBytes {
				t.header = s.page[t.rowStart:end]
			}
		}
		if at >= 0 {
			if t.rows == 0 {
				t.rowStart = at
			}
			t.rows++
		}
		return
	}
}

// ended pops the innermost open element of that name and those inside it;
// an end tag with no open element is ignored, as the parser ignores it.
func (s *segmenter) ended(name string) {
	for i := len(s.open) - 1; i >= 0; i-- {
		if s.open[i].name == name {
			s.open = s.open[:i]
			return
		}
	}
}

// closeOpen pops the innermost open element among closes, unless an element
// of scope comes first.
func (s *segmenter) closeOpen(closes, scope []atom.Atom) {
	for i := len(s.open) - 1; i >= 0; i-- {
		a := s.open[i].atom
		if contains(closes, a) {
			s.open = s.open[:i]
			return
		}
		if contains(scope, a) {
			return
		}
	}
}

func contains(list []atom.Atom, a atom.Atom) bool {
	for _, x := range list {
		if x == a {
			return true
		}
	}
	return false
}

// voidElement reports whether an element has no end tag (it is never open).
func voidElement(k atom.Atom) bool {
	switch k {
	case atom.Area, atom.Base, atom.Br, atom.Col, atom.Embed, atom.Hr, atom.Img, atom.Input,
		atom.Link, atom.Meta, atom.Param, atom.Source, atom.Track, atom.Wbr:
		return true
	}
	return false
}

// cutsAfter reports whether a segment may end after an element's end tag
// without splitting a line of text.
func cutsAfter(k atom.Atom) bool {
	switch k {
	case atom.Tr, atom.Li, atom.P, atom.Div, atom.Table, atom.Tbody, atom.Section,
		atom.Article, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Ul, atom.Ol,
		atom.Pre, atom.Blockquote, atom.Dl, atom.Dd, atom.Main, atom.Header, atom.Footer,
		atom.Nav, atom.Aside, atom.Figure, atom.Details:
		return true
	}
	return false
}

// impliedEnd is what a start tag closes when it is open (closes), looking
// no further out than the nearest element of scope.
type impliedEnd struct{ closes, scope []atom.Atom }

// The implied ends, as static data (impliedEndOf picks one).
var (
	paragraphEnd = impliedEnd{closes: []atom.Atom{atom.P}, scope: []atom.Atom{atom.Div, atom.Td, atom.Th, atom.Li, atom.Body, atom.Table, atom.Blockquote, atom.Section, atom.Article, atom.Button}}
	listItemEnd  = impliedEnd{closes: []atom.Atom{atom.Li}, scope: []atom.Atom{atom.Ul, atom.Ol, atom.Menu}}
	cellEnd      = impliedEnd{closes: []atom.Atom{atom.Td, atom.Th}, scope: []atom.Atom{atom.Tr, atom.Table}}
	rowEnd       = impliedEnd{closes: []atom.Atom{atom.Tr}, scope: []atom.Atom{atom.Tbody, atom.Thead, atom.Tfoot, atom.Table}}
	sectionEnd   = impliedEnd{closes: []atom.Atom{atom.Tbody, atom.Thead, atom.Tfoot}, scope: []atom.Atom{atom.Table}}
	termEnd      = impliedEnd{closes: []atom.Atom{atom.Dt, atom.Dd}, scope: []atom.Atom{atom.Dl}}
	optionEnd    = impliedEnd{closes: []atom.Atom{atom.Option}, scope: []atom.Atom{atom.Select, atom.Datalist}}
)

// impliedEndOf is what the start tag a closes when it is open; a switch,
// not a map, so that nothing is built at program start.
func impliedEndOf(a atom.Atom) (impliedEnd, bool) {
	switch a {
	case atom.Li:
		return listItemEnd, true
	case atom.Td, atom.Th:
		return cellEnd, true
	case atom.Tr:
		return rowEnd, true
	case atom.Tbody, atom.Thead, atom.Tfoot:
		return sectionEnd, true
	case atom.Dt, atom.Dd:
		return termEnd, true
	case atom.Option:
		return optionEnd, true
	case atom.P, atom.Div, atom.Table, atom.Ul, atom.Ol, atom.Pre, atom.Blockquote, atom.H1,
		atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Section, atom.Article, atom.Hr:
		return paragraphEnd, true
	}
	return impliedEnd{}, false
}
