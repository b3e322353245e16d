package web

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/memprobe"
)

// tablePage is an HTML page of about size bytes made of tables of short
// cells, as a data dump or a generated report is.
func tablePage(size int) string {
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><title>Report</title></head><body>\n")
	for t := 0; b.Len() < size; t++ {
		fmt.Fprintf(&b, "<h2>Table %d</h2>\n<table><thead><tr><th>id</th><th>name</th><th>value</th><th>unit</th><th>note</th></tr></thead><tbody>\n", t)
		for r := 0; r < 1000 && b.Len() < size; r++ {
			fmt.Fprintf(&b, "<tr><td>%d</td><td>item %d</td><td>%d.%02d</td><td>kg</td><td>ok</td></tr>\n", r, r, r*37%1000, r%100)
		}
		b.WriteString("</tbody></table>\n")
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

// BenchmarkHTMLToMarkdownTables converts a 4 MB page of tables and reports
// the peak heap and the bytes allocated per byte of the page.
func BenchmarkHTMLToMarkdownTables(b *testing.B) {
	page := tablePage(4 << 20)
	b.SetBytes(int64(len(page)))
	var rec memprobe.Recorder
	for i := 0; i < b.N; i++ {
		rec.Measure(func() {
			if md, _, cut := convertHTML(page, "https://example.com/report", segmentBytes, maxPageText); cut || md == "" {
				b.Fatalf("convertHTML: %d bytes, cut %v", len(md), cut)
			}
		})
	}
	rec.Report(b, len(page), "page")
}
