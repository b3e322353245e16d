package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
)

// testSettings returns the defaults changed by edit.
func testSettings(edit func(*settings.Settings)) func() *settings.Settings {
	s := settings.Defaults()
	if edit != nil {
		edit(s)
	}
	return func() *settings.Settings { return s }
}

func call(t *testing.T, tool tools.Tool, input any) *tools.Result {
	t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tool.Execute(t.Context(), &tools.Call{ID: "call-1", Input: raw, Host: tools.NoHost{}})
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	return res
}

func fetchInput(url string) map[string]any {
	return map[string]any{"url": url, "prompt": "What does it say?"}
}

func mustContain(t *testing.T, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q:\n%s", w, text)
		}
	}
}

func output(t *testing.T, res *tools.Result) WebFetchOutput {
	t.Helper()
	out, ok := res.Structured.(WebFetchOutput)
	if !ok {
		t.Fatalf("structured is %T, want WebFetchOutput", res.Structured)
	}
	return out
}

func TestWebFetchTimeouts(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
	}{
		{"no answer at all", func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
		}},
		{"headers, then the body stalls", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "the beginning of a page that never ends")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts := httptest.NewServer(tc.handler)
			defer ts.Close()
			tool := NewWebFetch(testSettings(func(s *settings.Settings) { s.Web.TotalTimeoutMs = 200 }))
			res := call(t, tool, fetchInput(ts.URL+"/slow"))
			if !res.IsError {
				t.Fatalf("want an error result, got %q", res.Text())
			}
			mustContain(t, res.Text(), "Error: ", "did not send the whole page within 200ms", "webFetch.totalTimeoutMs")
		})
	}
}

func TestWebFetchCallerCancelIsNotAToolError(t *testing.T) {
	started := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-r.Context().Done()
	}))
	defer ts.Close()
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-started
		cancel()
	}()
	tool := NewWebFetch(testSettings(nil))
	_, err := tool.Execute(ctx, &tools.Call{Input: json.RawMessage(`{"url":"` + ts.URL + `","prompt":"x"}`)})
	if err != context.Canceled {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestWebFetchConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	res := call(t, NewWebFetch(testSettings(nil)), fetchInput("http://"+addr+"/"))
	if !res.IsError {
		t.Fatalf("want an error result, got %q", res.Text())
	}
	mustContain(t, res.Text(), "could not connect to "+addr)
}

func TestWebFetchSizeCap(t *testing.T) {
	const pageSize = 50 << 20
	const maxBytes = 1 << 20
	var written atomic.Int64
	handlerDone := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(handlerDone)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		chunk := []byte(strings.Repeat("0123456789abcdef", 4096)) // 64 KiB
		for written.Load() < pageSize {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return // the client hung up, as it should
			}
		}
	}))
	defer ts.Close()

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	tool := NewWebFetch(testSettings(func(s *settings.Settings) { s.Web.MaxBytes = maxBytes }))
	res := call(t, tool, fetchInput(ts.URL+"/huge.txt"))
	runtime.ReadMemStats(&after)

	if res.IsError {
		t.Fatalf("a page over the cap is cut, not refused: %s", res.Text())
	}
	out := output(t, res)
	if !out.Truncated || out.Bytes != maxBytes || out.TotalChars != maxBytes {
		t.Errorf("truncated %v, bytes %d, chars %d; want true, %d, %d", out.Truncated, out.Bytes, out.TotalChars, maxBytes, maxBytes)
	}
	mustContain(t, res.Text(), "larger than the webFetch.maxBytes setting")
	select {
	case <-handlerDone:
	case <-t.Context().Done():
		t.Fatal("the server kept sending: the client did not hang up")
	}
	if w := written.Load(); w >= pageSize {
		t.Errorf("the server sent the whole %d bytes; the client should stop reading after %d", w, maxBytes)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > pageSize/2 {
		t.Errorf("the call allocated %d bytes for a %d-byte cap; memory is not bounded", alloc, maxBytes)
	}
}

func TestWebFetchRedirects(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the other host got a request for %s; cross-host redirects must not be followed", r.URL)
	}))
	defer other.Close()

	var mu sync.Mutex
	var paths []string
	mux := http.NewServeMux()
	mux.HandleFunc("/loop/a", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop/b", http.StatusFound) })
	mux.HandleFunc("/loop/b", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop/a", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/chain/", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/chain/"), "%d", &n)
		http.Redirect(w, r, fmt.Sprintf("/chain/%d", n+1), http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "new?x=1", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/new", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "you arrived at "+r.URL.RequestURI())
	})
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/landing", http.StatusFound)
	})
	mux.HandleFunc("/to-localhost", func(w http.ResponseWriter, r *http.Request) {
		// The same server under another host name is another host.
		http.Redirect(w, r, strings.Replace("http://"+r.Host, "127.0.0.1", "localhost", 1)+"/new", http.StatusFound)
	})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	defer ts.Close()
	localhostURL := strings.Replace(ts.URL, "127.0.0.1", "localhost", 1)

	tests := []struct {
		name         string
		path         string
		wantError    bool
		wantText     []string
		wantRequests int
		wantRedirect string
		wantURL      string
	}{
		{name: "loop", path: "/loop/a", wantError: true, wantRequests: 2,
			wantText: []string{"redirects in a loop", ts.URL + "/loop/a → " + ts.URL + "/loop/b → " + ts.URL + "/loop/a"}},
		{name: "more than ten", path: "/chain/0", wantError: true, wantRequests: 11,
			wantText: []string{"redirected more than 10 times"}},
		{name: "same host followed", path: "/old", wantRequests: 2, wantURL: ts.URL + "/new?x=1",
			wantText: []string{"you arrived at /new?x=1"}},
		{name: "other host reported", path: "/away", wantRequests: 1, wantRedirect: other.URL + "/landing",
			wantText: []string{"redirects (302 Found) to another host: " + other.URL + "/landing", `call WebFetch again with url "` + other.URL + `/landing"`}},
		{name: "other host name reported", path: "/to-localhost", wantRequests: 1, wantRedirect: localhostURL + "/new",
			wantText: []string{"to another host: " + localhostURL + "/new"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			paths = nil
			mu.Unlock()
			res := call(t, NewWebFetch(testSettings(nil)), fetchInput(ts.URL+tc.path))
			if res.IsError != tc.wantError {
				t.Fatalf("isError %v, want %v: %s", res.IsError, tc.wantError, res.Text())
			}
			mustContain(t, res.Text(), tc.wantText...)
			mu.Lock()
			got := len(paths)
			mu.Unlock()
			if got != tc.wantRequests {
				t.Errorf("%d requests (%v), want %d", got, paths, tc.wantRequests)
			}
			if tc.wantRedirect != "" && output(t, res).RedirectURL != tc.wantRedirect {
				t.Errorf("redirectUrl %q, want %q", output(t, res).RedirectURL, tc.wantRedirect)
			}
			if tc.wantURL != "" && output(t, res).URL != tc.wantURL {
				t.Errorf("url %q, want %q", output(t, res).URL, tc.wantURL)
			}
		})
	}
}

const samplePage = `<!DOCTYPE html>
<html><head><title>Widget  Guide</title><style>body{color:red}</style>
<script>var secret = "script text";</script></head>
<body>
<nav><a href="/">Home</a></nav>
<h1>Installing widgets</h1>
<p>Read the <a href="/docs/setup?lang=go">setup notes</a> and <a href="https://other.example/x">elsewhere</a> first.</p>
<ul><li>first step</li><li>second step</li></ul>
<pre><code class="language-go">fmt.Println("hi")</code></pre>
<table><tr><th>Name</th><th>Size</th></tr><tr><td>bolt</td><td>5</td></tr></table>
<img src="img/w.png" alt="widget">
<form><input name="q"><button>Search</button></form>
</body></html>`

func TestWebFetchHTMLToMarkdown(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, samplePage)
	}))
	defer ts.Close()
	res := call(t, NewWebFetch(testSettings(nil)), fetchInput(ts.URL+"/guide/index.html"))
	if res.IsError {
		t.Fatal(res.Text())
	}
	text := res.Text()
	mustContain(t, text,
		"Title: Widget Guide",
		"# Installing widgets",
		"[setup notes]("+ts.URL+"/docs/setup?lang=go)",
		"[elsewhere](https://other.example/x)",
		"- first step\n- second step",
		"```go\nfmt.Println(\"hi\")\n```",
		"| Name | Size |",
		"![widget]("+ts.URL+"/guide/img/w.png)",
		"No summariser is configured",
	)
	for _, unwanted := range []string{"script text", "color:red", "<p>", "Search"} {
		if strings.Contains(text, unwanted) {
			t.Errorf("text contains %q:\n%s", unwanted, text)
		}
	}
	if out := output(t, res); out.Code != 200 || out.CodeText != "OK" || out.Bytes != len(samplePage) || out.NextOffset != nil {
		t.Errorf("structured %+v", out)
	}
}

func TestWebFetchContentTypes(t *testing.T) {
	tests := []struct {
		name        string
		contentType string // "none" sends no Content-Type at all
		body        string
		wantError   bool
		wantText    []string
	}{
		{"plain text as is", "text/plain; charset=utf-8", "line *one*\n<b>not html</b>", false, []string{"line *one*\n<b>not html</b>"}},
		{"json as is", "application/json", `{"name": "toolhost", "tags": ["a", "b"]}`, false, []string{`{"name": "toolhost", "tags": ["a", "b"]}`}},
		{"vendor json as is", "application/vnd.api+json", `{"data": []}`, false, []string{`{"data": []}`}},
		{"latin-1 decoded", "text/plain; charset=iso-8859-1", "caf\xe9", false, []string{"café"}},
		{"unlabelled html sniffed", "none", "<html><body><h2>Sniffed</h2></body></html>", false, []string{"## Sniffed"}},
		{"png refused", "image/png", "\x89PNG\r\n\x1a\n\x00\x00", true, []string{"is image/png, which WebFetch cannot read as text"}},
		{"octet-stream refused", "application/octet-stream", "\x00\x01\x02", true, []string{"application/octet-stream"}},
		{"pdf refused", "application/pdf", "%PDF-1.7", true, []string{"application/pdf"}},
		{"text with NUL bytes refused", "text/plain", "abc\x00def", true, []string{"cannot read as text"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tc.contentType == "none" {
					w.Header()["Content-Type"] = nil
				} else {
					w.Header().Set("Content-Type", tc.contentType)
				}
				io.WriteString(w, tc.body)
			}))
			defer ts.Close()
			res := call(t, NewWebFetch(testSettings(nil)), fetchInput(ts.URL+"/file"))
			if res.IsError != tc.wantError {
				t.Fatalf("isError %v, want %v: %s", res.IsError, tc.wantError, res.Text())
			}
			mustContain(t, res.Text(), tc.wantText...)
		})
	}
}

func TestWebFetchStatusErrorsAreNotCached(t *testing.T) {
	var hits atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, "<h1>No such page</h1>")
	}))
	defer ts.Close()
	tool := NewWebFetch(testSettings(nil))
	for range 2 {
		res := call(t, tool, fetchInput(ts.URL+"/missing"))
		if !res.IsError {
			t.Fatalf("want an error result, got %q", res.Text())
		}
		mustContain(t, res.Text(), "answered 404 Not Found", "The page said: # No such page")
	}
	if hits.Load() != 2 {
		t.Errorf("%d requests, want 2 (errors are not cached)", hits.Load())
	}
}

func TestWebFetchCache(t *testing.T) {
	var hits atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := hits.Add(1)
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "version %d of the page", n)
	}))
	defer ts.Close()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	var clockMu sync.Mutex
	clock := func() time.Time { clockMu.Lock(); defer clockMu.Unlock(); return now }
	tool := NewWebFetch(testSettings(nil), WithClock(clock))

	steps := []struct {
		advance    time.Duration
		url        string
		wantHits   int32
		wantText   string
		wantCached bool
	}{
		{0, "/page", 1, "version 1 of the page", false},
		{5 * time.Minute, "/page", 1, "version 1 of the page", true},
		{5 * time.Minute, "/page#section", 1, "version 1 of the page", true}, // fragments are not part of the key
		{0, "/page?other", 2, "version 2 of the page", false},
		{6 * time.Minute, "/page", 3, "version 3 of the page", false}, // 16 minutes after the first fetch
	}
	for i, s := range steps {
		clockMu.Lock()
		now = now.Add(s.advance)
		clockMu.Unlock()
		res := call(t, tool, fetchInput(ts.URL+s.url))
		if res.IsError {
			t.Fatalf("step %d: %s", i, res.Text())
		}
		if got := hits.Load(); got != s.wantHits {
			t.Errorf("step %d: %d requests, want %d", i, got, s.wantHits)
		}
		mustContain(t, res.Text(), s.wantText)
		if out := output(t, res); out.Cached != s.wantCached {
			t.Errorf("step %d: cached %v, want %v", i, out.Cached, s.wantCached)
		}
		if s.wantCached {
			mustContain(t, res.Text(), "(from the 15-minute cache)")
		}
	}
}

func TestPageCacheBounds(t *testing.T) {
	now := time.Now()
	c := newPageCache(func() time.Time { return now })
	c.maxEntries, c.maxBytes = 3, 10
	put := func(key, text string) { c.put(key, &page{text: text}) }
	has := func(key string) bool { _, ok := c.get(key); return ok }

	put("a", "1111")
	put("b", "2222")
	if !has("a") { // a is now the most recently used
		t.Fatal("a missing")
	}
	put("c", "33") // 10 bytes: a, b, c fit
	put("d", "4")  // 4 entries: the least recently used (b) goes
	if has("b") || !has("a") || !has("c") || !has("d") {
		t.Errorf("after the entry bound: a %v b %v c %v d %v, want b evicted only", has("a"), has("b"), has("c"), has("d"))
	}
	put("e", "55555") // over 10 bytes: evict from the oldest until it fits
	if c.bytes > c.maxBytes || !has("e") {
		t.Errorf("cache holds %d bytes (max %d), e present %v", c.bytes, c.maxBytes, has("e"))
	}
	put("huge", strings.Repeat("x", 11))
	if has("huge") {
		t.Error("a page larger than the whole cache was kept")
	}
}

func TestWebFetchPaging(t *testing.T) {
	var page strings.Builder
	for i := range 40 {
		fmt.Fprintf(&page, "line %02d: café 日本語 ✓\n", i)
	}
	text := page.String()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, text)
	}))
	defer ts.Close()
	const pageChars = 100
	tool := NewWebFetch(testSettings(nil), WithPageSize(pageChars))

	var got strings.Builder
	offset, calls := 0, 0
	for {
		calls++
		if calls > 50 {
			t.Fatal("paging does not end")
		}
		res := call(t, tool, map[string]any{"url": ts.URL, "prompt": "p", "offset": offset})
		if res.IsError {
			t.Fatal(res.Text())
		}
		out := output(t, res)
		if out.Offset != offset || out.TotalChars != utf8.RuneCountInString(text) {
			t.Fatalf("offset %d total %d, want %d %d", out.Offset, out.TotalChars, offset, utf8.RuneCountInString(text))
		}
		// The part sits between the note and the footer.
		body := res.Text()[strings.Index(res.Text(), "yourself.\n\n")+len("yourself.\n\n"):]
		if out.NextOffset == nil {
			got.WriteString(body)
			break
		}
		body = body[:strings.LastIndex(body, "\n\n---\n")]
		if n := utf8.RuneCountInString(body); n > pageChars || n != *out.NextOffset-offset {
			t.Fatalf("part of %d characters from %d to %d", n, offset, *out.NextOffset)
		}
		if !strings.HasSuffix(body, "\n") {
			t.Errorf("part %q does not end on a whole line", body)
		}
		mustContain(t, res.Text(), fmt.Sprintf("Characters %d-%d of %d.", offset, *out.NextOffset, out.TotalChars),
			fmt.Sprintf("offset %d to read the next part", *out.NextOffset))
		got.WriteString(body)
		offset = *out.NextOffset
	}
	if got.String() != text {
		t.Errorf("the parts do not add up to the page:\n%q\nwant\n%q", got.String(), text)
	}
	if calls < 5 {
		t.Errorf("%d calls for %d characters in parts of %d", calls, len(text), pageChars)
	}

	for _, bad := range []any{utf8.RuneCountInString(text), 1 << 30, -1, 2.5} {
		res := call(t, tool, map[string]any{"url": ts.URL, "prompt": "p", "offset": bad})
		if !res.IsError {
			t.Errorf("offset %v: want an error, got %q", bad, res.Text())
		}
	}
}

func TestWebFetchSummariser(t *testing.T) {
	const pageText = "The launch code is 42. Nothing else is on this page."
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, pageText)
	}))
	defer site.Close()

	type request struct {
		method, path, auth, contentType string
		body                            chatRequest
	}
	var mu sync.Mutex
	var got []request
	failing := false
	chat := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body chatRequest
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			t.Errorf("the summariser request is not JSON: %v", err)
		}
		mu.Lock()
		got = append(got, request{r.Method, r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("Content-Type"), body})
		fail := failing
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if fail {
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, `{"error":{"message":"model overloaded"}}`)
			return
		}
		io.WriteString(w, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"  The code is 42.  "},"finish_reason":"stop"}]}`)
	}))
	defer chat.Close()

	t.Setenv("TOOLHOST_TEST_SUMMARY_KEY", "sk-test")
	cfg := testSettings(func(s *settings.Settings) {
		s.Agent = settings.Agent{Endpoint: chat.URL + "/v1/chat/completions", Model: "small-model", APIKeyEnv: "TOOLHOST_TEST_SUMMARY_KEY"}
	})
	tool := NewWebFetch(cfg)
	res := call(t, tool, map[string]any{"url": site.URL + "/doc", "prompt": "What is the launch code?"})
	if res.IsError {
		t.Fatal(res.Text())
	}
	if !strings.HasPrefix(res.Text(), "The code is 42.\n\n---\nAnswered from "+site.URL+"/doc (200 OK).") {
		t.Errorf("text %q, want the model's answer and the source", res.Text())
	}
	if strings.Contains(res.Text(), "Nothing else is on this page") {
		t.Error("the page text was returned although the summariser answered")
	}
	if out := output(t, res); !out.Summarised || out.Result != res.Text() {
		t.Errorf("structured %+v", out)
	}

	mu.Lock()
	if len(got) != 1 {
		t.Fatalf("%d summariser requests, want 1", len(got))
	}
	r := got[0]
	mu.Unlock()
	if r.method != http.MethodPost || r.path != "/v1/chat/completions" || r.auth != "Bearer sk-test" || r.contentType != "application/json" {
		t.Errorf("request %s %s auth %q type %q", r.method, r.path, r.auth, r.contentType)
	}
	if r.body.Model != "small-model" || len(r.body.Messages) != 2 || r.body.Messages[0].Role != "system" || r.body.Messages[1].Role != "user" {
		t.Fatalf("request body %+v, want {model, [system, user]}", r.body)
	}
	mustContain(t, r.body.Messages[1].Content, pageText, "What is the launch code?", site.URL+"/doc")

	// A failing summariser falls back to the page text, saying why.
	mu.Lock()
	failing = true
	mu.Unlock()
	res = call(t, tool, map[string]any{"url": site.URL + "/doc", "prompt": "again?"})
	if res.IsError {
		t.Fatal(res.Text())
	}
	mustContain(t, res.Text(), "The summariser (agent.endpoint) failed", "500 Internal Server Error: model overloaded", pageText)
	if output(t, res).Summarised {
		t.Error("summarised is set although the summariser failed")
	}

	// A long page is summarised part by part.
	mu.Lock()
	failing = false
	mu.Unlock()
	res = call(t, NewWebFetch(cfg, WithPageSize(20)), map[string]any{"url": site.URL + "/doc", "prompt": "first part?"})
	if res.IsError {
		t.Fatal(res.Text())
	}
	mustContain(t, res.Text(), "The code is 42.", "characters 0-20 of 52", "offset 20 to read the next part")
	mu.Lock()
	sent := got[len(got)-1].body.Messages[1].Content
	mu.Unlock()
	if !strings.Contains(sent, pageText[:20]) || strings.Contains(sent, pageText[20:]) {
		t.Errorf("the summariser got %q, want only the first 20 characters of the page", sent)
	}
}

func TestWebFetchUpgradesHTTPToHTTPS(t *testing.T) {
	var sawTLS atomic.Bool
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawTLS.Store(r.TLS != nil)
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "secure page for "+r.Host)
	}))
	defer ts.Close()
	// Send every connection to the TLS server, whatever host the URL names;
	// its certificate is valid for example.com.
	client := ts.Client()
	transport := client.Transport.(*http.Transport).Clone()
	transport.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, ts.Listener.Addr().String())
	}
	client.Transport = transport

	tool := NewWebFetch(testSettings(nil), WithHTTPClient(client))
	res := call(t, tool, fetchInput("http://example.com:443/page"))
	if res.IsError {
		t.Fatal(res.Text())
	}
	if !sawTLS.Load() {
		t.Error("the request did not use TLS")
	}
	mustContain(t, res.Text(), "URL: https://example.com:443/page", "secure page for example.com")
}

func TestNormaliseURL(t *testing.T) {
	tests := []struct {
		in, want string
		wantErr  string
	}{
		{in: "http://example.com/a?b=c#frag", want: "https://example.com/a?b=c"},
		{in: "HTTP://Example.com:80/", want: "https://Example.com/"},
		{in: "http://example.com:8080/", want: "https://example.com:8080/"},
		{in: "https://example.com", want: "https://example.com"},
		{in: "http://localhost:3000/x", want: "http://localhost:3000/x"},
		{in: "http://app.localhost/", want: "http://app.localhost/"},
		{in: "http://127.0.0.1:8080/", want: "http://127.0.0.1:8080/"},
		{in: "http://127.1.2.3/", want: "http://127.1.2.3/"},
		{in: "http://[::1]:9000/", want: "http://[::1]:9000/"},
		{in: "", wantErr: "url is empty"},
		{in: "ftp://example.com/file", wantErr: "not an http(s) URL"},
		{in: "/just/a/path", wantErr: "not an http(s) URL"},
		{in: "https://", wantErr: "has no host"},
		{in: "https://user:pw@example.com/", wantErr: "user name or password"},
		{in: "https://example.com/" + strings.Repeat("a", maxURLLength), wantErr: "at most 2000"},
	}
	for _, tc := range tests {
		u, err := normaliseURL(tc.in)
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("normaliseURL(%q) = %v, %v; want error %q", tc.in, u, err, tc.wantErr)
			}
		case err != nil || u.String() != tc.want:
			t.Errorf("normaliseURL(%q) = %v, %v; want %s", tc.in, u, err, tc.want)
		}
	}
}

func TestSameHost(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"https://example.com/a", "https://example.com/b", true},
		{"https://example.com/", "https://www.example.com/", true},
		{"http://example.com/", "https://example.com/", true},
		{"https://EXAMPLE.com/", "https://example.com./", true},
		{"http://127.0.0.1:8000/", "http://127.0.0.1:8000/x", true},
		{"http://127.0.0.1:8000/", "http://127.0.0.1:9000/", false},
		{"http://127.0.0.1:8000/", "http://localhost:8000/", false},
		{"https://example.com/", "https://docs.example.com/", false},
		{"https://example.com/", "https://example.org/", false},
	}
	for _, tc := range tests {
		a, _ := normaliseURL(tc.a)
		b, _ := normaliseURL(tc.b)
		if got := sameHost(a, b); got != tc.want {
			t.Errorf("sameHost(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestWebFetchAccessAndPreview(t *testing.T) {
	tool := NewWebFetch(testSettings(nil))
	in := json.RawMessage(`{"url":"http://Docs.Example.com:8443/guide#top","prompt":"x"}`)
	if got := tool.Access(in).Domain; got != "docs.example.com" {
		t.Errorf("domain %q, want docs.example.com", got)
	}
	p := tool.Preview(t.Context(), in)
	if p == nil || p.Kind != "url" || p.Text != "https://Docs.Example.com:8443/guide" {
		t.Errorf("preview %+v", p)
	}
	if acc := tool.Access(json.RawMessage(`{"url":"not a url","prompt":"x"}`)); acc.Domain != "" {
		t.Errorf("an invalid URL claims domain %q", acc.Domain)
	}
}

// BenchmarkWebFetchPage measures a fetch of a 500 KB HTML page from a local
// server against a cache hit of the same page: the ratio is what the cache
// saves (conversion included).
func BenchmarkWebFetchPage(b *testing.B) {
	var page strings.Builder
	page.WriteString("<html><head><title>Bench</title></head><body>")
	for page.Len() < 500<<10 {
		page.WriteString(`<h2>Section</h2><p>Some <a href="/x">linked</a> text with <code>code</code>.</p><ul><li>one</li><li>two</li></ul>`)
	}
	page.WriteString("</body></html>")
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, page.String())
	}))
	defer ts.Close()
	input := json.RawMessage(`{"url":"` + ts.URL + `/p","prompt":"x"}`)
	run := func(b *testing.B, tool *WebFetch) {
		if res, err := tool.Execute(b.Context(), &tools.Call{Input: input}); err != nil || res.IsError {
			b.Fatal(err, res.Text())
		}
	}
	b.Run("uncached", func(b *testing.B) {
		for b.Loop() {
			run(b, NewWebFetch(testSettings(nil)))
		}
	})
	b.Run("cached", func(b *testing.B) {
		tool := NewWebFetch(testSettings(nil))
		run(b, tool)
		for b.Loop() {
			run(b, tool)
		}
	})
}

// A page nested deeper than the HTML parser allows still gives its text.
func TestWebFetchDeeplyNestedPage(t *testing.T) {
	page := "<html><head><title>Deep  page</title><style>.x{}</style></head><body><p>before</p>" +
		strings.Repeat("<div>", 2000) + "deep text" + strings.Repeat("</div>", 2000) +
		"<script>var hidden = 1;</script><p>after</p></body></html>"
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(page))
	}))
	defer ts.Close()
	res := call(t, NewWebFetch(testSettings(nil)), fetchInput(ts.URL+"/deep.html"))
	if res.IsError {
		t.Fatalf("a deeply nested page failed: %s", res.Text())
	}
	for _, want := range []string{"before", "deep text", "after", "Deep page"} {
		mustContain(t, res.Text(), want)
	}
	if strings.Contains(res.Text(), "hidden") {
		t.Errorf("script text leaked into the page text: %s", res.Text())
	}
}
