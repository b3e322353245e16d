package web

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"
)

// withMaxPageText sets the cap on a page's Markdown.
func withMaxPageText(n int) Option {
	return func(o *options) { o.maxText = n }
}

// A page converted in segments keeps its structure: a table split between
// segments still gives every row once, as a table row, and goes on under
// its header; a list split keeps its items; no HTML leaks into the text.
func TestConvertHTMLInSegments(t *testing.T) {
	var b strings.Builder
	b.WriteString("<html><head><title>Big report</title></head><body><div class=\"main\">\n<table><tr><th>id</th><th>name</th></tr>\n")
	for r := 0; r < 2000; r++ {
		fmt.Fprintf(&b, "<tr><td>%d</td><td>item %d</td></tr>\n", r, r)
	}
	b.WriteString("</table>\n<ul>")
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&b, "<li>point %d", i) // no </li>, as pages often write it
	}
	b.WriteString("</ul><p>The end.</p></div></body></html>")
	page := b.String()
	whole, title, cut := convertHTML(page, "https://example.com/", len(page)*2, maxPageText)
	md, title2, cut2 := convertHTML(page, "https://example.com/", 4<<10, maxPageText)
	if cut || cut2 || title != "Big report" || title2 != "Big report" {
		t.Fatalf("cut %v/%v, titles %q/%q", cut, cut2, title, title2)
	}
	// Where the table is split, it goes on under its own header row.
	if n := strings.Count(md, "| id | name |\n|---|---|\n"); strings.Count(whole, "| id | name |") != 1 || n < 2 || strings.Contains(md, "|  |") {
		t.Errorf("the split table's header appears %d times, or a row is empty:\n%s", n, md[:min(len(md), 3000)])
	}
	for _, text := range []string{whole, md} {
		for r := 0; r < 2000; r++ {
			if row := fmt.Sprintf("| %d | item %d |\n", r, r); strings.Count(text, row) != 1 {
				t.Fatalf("row %q appears %d times in:\n%s", row, strings.Count(text, row), text[:min(len(text), 2000)])
			}
		}
		for i := 0; i < 1000; i++ {
			if item := fmt.Sprintf("- point %d\n", i); strings.Count(text, item) != 1 {
				t.Fatalf("item %q appears %d times", item, strings.Count(text, item))
			}
		}
		if strings.Contains(text, "<") || !strings.HasSuffix(text, "The end.") {
			t.Errorf("text has HTML or lost its end: ...%s", text[max(0, len(text)-300):])
		}
	}
}

// A long cell does not widen every other row of its table: cells get one
// space each side, not padding to the widest of their column.
func TestConvertHTMLDoesNotPadTables(t *testing.T) {
	long := strings.Repeat("word ", 2000)
	var b strings.Builder
	fmt.Fprintf(&b, "<table><tr><th>k</th><th>v</th></tr><tr><td>0</td><td>%s</td></tr>", long)
	for r := 1; r < 500; r++ {
		fmt.Fprintf(&b, "<tr><td>%d</td><td>x</td></tr>", r)
	}
	b.WriteString("</table>")
	md, _, _ := convertHTML(b.String(), "https://example.com/", segmentBytes, maxPageText)
	if !strings.Contains(md, "\n| 7 | x |\n") || len(md) > 2*b.Len() {
		t.Errorf("rows are padded: %d bytes of Markdown from %d of HTML:\n%s", len(md), b.Len(), md[:min(len(md), 500)])
	}
}

// Past the cap the conversion stops, on a whole character, and says so.
func TestConvertHTMLStopsAtTheCap(t *testing.T) {
	page := strings.Repeat("<p>été "+strings.Repeat("x", 90)+"</p>\n", 5000)
	md, _, cut := convertHTML(page, "https://example.com/", 16<<10, 100_001)
	if !cut || len(md) > 100_001 || len(md) < 90_000 || !utf8.ValidString(md) {
		t.Fatalf("cut %v, %d bytes, valid UTF-8 %v", cut, len(md), utf8.ValidString(md))
	}
	if _, _, cut := convertHTML(page, "https://example.com/", 16<<10, len(page)); cut {
		t.Error("a page whose text fits was cut")
	}
}

// WebFetch of a page whose text passes the cap says it was cut, and how to
// get the rest.
func TestWebFetchSaysTheTextWasCut(t *testing.T) {
	page := strings.Repeat("<p>"+strings.Repeat("y", 99)+"</p>\n", 2000)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, page)
	}))
	defer ts.Close()
	res := call(t, NewWebFetch(testSettings(nil), withMaxPageText(50_000), WithPageSize(1_000_000)), fetchInput(ts.URL))
	if res.IsError {
		t.Fatal(res.Text())
	}
	mustContain(t, res.Text(), "The page's text was cut at 50000 characters", "curl -o")
	if out := output(t, res); !out.TextCut || out.Truncated || out.TotalChars != 50_000 {
		t.Errorf("structured %+v", out)
	}
}

// A head that spans segments (a big inline script before the title) still
// gives the page's title, and the script's text stays out.
func TestConvertHTMLTitleAfterABigScript(t *testing.T) {
	page := "<html><head><script>var x = '" + strings.Repeat("s", 20<<10) + "';</script><title>Late title</title></head><body><p>Body text.</p></body></html>"
	md, title, _ := convertHTML(page, "https://example.com/", 4<<10, maxPageText)
	if title != "Late title" || md != "Body text." {
		t.Errorf("title %q, text %q", title, md[:min(len(md), 200)])
	}
}
