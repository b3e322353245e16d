package web

import (
	"bytes"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
)

// contentKind is how WebFetch treats a response body.
type contentKind int

const (
	kindBinary contentKind = iota
	kindHTML
	kindText
)

// textualApplicationType reports whether an application/* media type is text.
func textualApplicationType(k string) bool {
	switch k {
	case "application/json", "application/xml", "application/javascript",
		"application/ecmascript", "application/x-javascript", "application/yaml",
		"application/x-yaml", "application/toml", "application/x-ndjson", "application/sql",
		"application/graphql", "application/x-sh", "application/x-httpd-php",
		"application/rss+xml", "application/atom+xml":
		return true
	}
	return false
}

// classify decides from the Content-Type header (or, without one, from the
// first bytes) whether a body is HTML, other text, or binary. Text that holds
// NUL bytes is binary whatever its label says.
func classify(contentType string, body []byte) (contentKind, string) {
	mediaType, _, err := mime.ParseMediaType(contentType)
	if contentType == "" || err != nil {
		contentType = http.DetectContentType(body)
		mediaType, _, _ = mime.ParseMediaType(contentType)
	}
	mediaType = strings.ToLower(mediaType)
	head := body
	if len(head) > 8192 {
		head = head[:8192]
	}
	hasNUL := bytes.IndexByte(head, 0) >= 0
	switch {
	case mediaType == "text/html" || mediaType == "application/xhtml+xml":
		if hasNUL {
			return kindBinary, mediaType
		}
		return kindHTML, mediaType
	case strings.HasPrefix(mediaType, "text/"), textualApplicationType(mediaType),
		strings.HasSuffix(mediaType, "+json"), strings.HasSuffix(mediaType, "+xml"):
		if hasNUL {
			return kindBinary, mediaType
		}
		return kindText, mediaType
	}
	return kindBinary, mediaType
}

// decodeText turns a body into UTF-8, honouring the charset of the header, a
// byte-order mark or an HTML meta tag; invalid sequences become U+FFFD.
func decodeText(body []byte, contentType string) string {
	enc, name, _ := charset.DetermineEncoding(body, contentType)
	if name != "utf-8" {
		if out, err := enc.NewDecoder().Bytes(body); err == nil {
			body = out
		}
	}
	return strings.ToValidUTF8(string(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))), "\uFFFD")
}

// maxPageText caps the Markdown of one page, in bytes: what the model can
// read of it page by page, and what the cache keeps. Past it the
// conversion stops and the result says the text was cut.
const maxPageText = 10 << 20

// convertHTML converts a page to Markdown with links and images made
// absolute against pageURL, in segments of about segment bytes of HTML (see
// segmenter). It returns the page's title separately, since the converter
// drops <head>, and whether the Markdown was cut at maxText bytes (the
// conversion stops there).
func convertHTML(page, pageURL string, segment, maxText int) (markdown, title string, cut bool) {
	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		// Cells are not padded to the widest of their column: one long
		// cell would otherwise widen every row of its table, a page of a
		// few kilobytes becoming megabytes of spaces.
		table.NewTablePlugin(table.WithCellPaddingBehavior(table.CellPaddingBehaviorMinimal)),
		strikethrough.NewStrikethroughPlugin(),
	))
	// Forms, embedded media and vector art carry no readable text.
	for _, tag := range []string{"form", "svg", "canvas", "template", "object", "embed", "video", "audio"} {
		conv.Register.TagType(tag, converter.TagTypeRemove, converter.PriorityStandard)
	}
	var b strings.Builder
	segments := newSegmenter(page, segment)
	for {
		part, ok := segments.next()
		if !ok {
			break
		}
		md, t := convertSegment(conv, part, pageURL)
		if title == "" {
			// The head may span segments (a big inline script first).
			title = t
		}
		if md == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		if b.Len()+len(md) > maxText {
			b.WriteString(cutUTF8(md, maxText-b.Len()))
			return b.String(), title, true
		}
		b.WriteString(md)
	}
	return b.String(), title, false
}

// convertSegment converts one segment, falling back to its plain text.
func convertSegment(conv *converter.Converter, part, pageURL string) (markdown, title string) {
	doc, err := html.Parse(strings.NewReader(part))
	if err != nil {
		// The parser refuses pages nested deeper than it allows (512 open
		// elements); their text is still there.
		return htmlToText(part)
	}
	title = findTitle(doc)
	out, err := conv.ConvertNode(doc, converter.WithDomain(pageURL))
	if err != nil {
		text, _ := htmlToText(part)
		return text, title
	}
	return strings.TrimSpace(string(out)), title
}

// cutUTF8 is the longest prefix of s of at most n bytes that ends on a
// whole character.
func cutUTF8(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// htmlToText is the text of a page read token by token, for pages the
// tree-building parser refuses: no depth limit, text of script and style
// left out, a line break at each block element.
func htmlToText(page string) (text, title string) {
	z := html.NewTokenizer(strings.NewReader(page))
	var b strings.Builder
	skip, inTitle := 0, false
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			lines := strings.Split(b.String(), "\n")
			var out []string
			for _, l := range lines {
				if l = strings.Join(strings.Fields(l), " "); l != "" {
					out = append(out, l)
				}
			}
			return strings.Join(out, "\n"), strings.Join(strings.Fields(title), " ")
		case html.TextToken:
			switch {
			case inTitle:
				title += string(z.Text())
			case skip == 0:
				b.Write(z.Text())
				b.WriteByte(' ')
			}
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			start := tt == html.StartTagToken
			switch a {
			case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg:
				if start {
					skip++
				} else if skip > 0 {
					skip--
				}
			case atom.Title:
				inTitle = start
			case atom.P, atom.Div, atom.Br, atom.Li, atom.Tr, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6,
				atom.Section, atom.Article, atom.Pre, atom.Blockquote, atom.Table, atom.Ul, atom.Ol, atom.Hr:
				b.WriteByte('\n')
			}
		}
	}
}

func findTitle(n *html.Node) string {
	if n.Type == html.ElementNode && n.DataAtom == atom.Title {
		return strings.Join(strings.Fields(nodeText(n)), " ")
	}
	if n.Type == html.ElementNode && n.DataAtom == atom.Body {
		return ""
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if t := findTitle(c); t != "" {
			return t
		}
	}
	return ""
}

// nodeText is the text inside n.
func nodeText(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// runeWindow returns the characters [start, start+n) of s, cut back to the
// last line break in the final tenth of the window when there is one, so
// pages end on whole lines. end is the character offset after the part.
func runeWindow(s string, start, n int) (part string, end int) {
	i, count := 0, 0
	for count < start && i < len(s) {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		count++
	}
	from := i
	for count < start+n && i < len(s) {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		count++
	}
	part, end = s[from:i], count
	if i < len(s) {
		if nl := strings.LastIndexByte(part, '\n'); nl >= 0 {
			if dropped := utf8.RuneCountInString(part[nl+1:]); dropped > 0 && dropped <= n/10 {
				part, end = part[:nl+1], end-dropped
			}
		}
	}
	return part, end
}
