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
		case "/misconfigured":
			w.Header().Set("Content-Encoding", "UTF-8")
			w.Write([]byte("plain text after all"))
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

	// A value that names no compression is read as none, as browsers do.
	res = call(t, tool, fetchInput(ts.URL+"/misconfigured"))
	if res.IsError {
		t.Fatalf("misconfigured encoding: %s", res.Text())
	}
	mustContain(t, res.Text(), "plain text after all")
}

// TestWebFetchRedirectWithCredentials: a redirect to an address carrying a
// user name and password is not followed (the transport would send them as
// Basic credentials), and the error does not repeat the password.
func TestWebFetchRedirectWithCredentials(t *testing.T) {
	var sawAuth bool
	var ts *httptest.Server
	ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			sawAuth = true
		}
		if r.URL.Path == "/start" {
			http.Redirect(w, r, strings.Replace(ts.URL, "http://", "http://admin:hunter2@", 1)+"/inside", http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("inside"))
	}))
	defer ts.Close()
	res := call(t, NewWebFetch(testSettings(nil)), fetchInput(ts.URL+"/start"))
	if !res.IsError || sawAuth {
		t.Fatalf("got %q (credentials sent: %v), want the redirect refused", res.Text(), sawAuth)
	}
	mustContain(t, res.Text(), "does not send credentials")
	if strings.Contains(res.Text(), "hunter2") {
		t.Errorf("the error repeats the password: %q", res.Text())
	}
}
