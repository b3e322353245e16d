package web

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/settings"
)

// TestWebFetchContentEncodings: gzip, which the transport asks for, is
// decoded and capped after decoding (a bomb yields webFetch.maxBytes of
// text, no more); an encoding nobody asked for is refused with a clear
// error rather than shown as text.
func TestWebFetchContentEncodings(t *testing.T) {
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	line := []byte(strings.Repeat("a", 1023) + "\n")
	for range 64 << 10 { // 64 MiB decoded, about 64 KiB on the wire
		zw.Write(line)
	}
	zw.Close()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		switch r.URL.Path {
		case "/bomb":
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(bomb.Bytes())
		case "/br":
			w.Header().Set("Content-Encoding", "br")
			w.Write([]byte{0x1b, 0xff, 0xff, 0x0f, 'x'})
		}
	}))
	defer ts.Close()
	const maxBytes = 1 << 20
	tool := NewWebFetch(testSettings(func(s *settings.Settings) { s.Web.MaxBytes = maxBytes }))

	res := call(t, tool, fetchInput(ts.URL+"/bomb"))
	if res.IsError {
		t.Fatalf("gzip bomb: %s", res.Text())
	}
	if out := output(t, res); out.Bytes != maxBytes || !out.Truncated {
		t.Errorf("gzip bomb: bytes=%d truncated=%v, want the decoded text cut at %d", out.Bytes, out.Truncated, maxBytes)
	}

	res = call(t, tool, fetchInput(ts.URL+"/br"))
	if !res.IsError {
		t.Fatalf("brotli: got %q, want an error", res.Text())
	}
	mustContain(t, res.Text(), `compressed as "br"`, "cannot decode")
}
