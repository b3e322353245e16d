package web

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/settings"
)

// duckDuckGoPage is a results page in the shape of html.duckduckgo.com/html/:
// an ad, then organic results whose links go through /l/?uddg=.
const duckDuckGoPage = `<!DOCTYPE html><html><body><div id="links" class="results">
<div class="result results_links results_links_deep result--ad">
  <h2 class="result__title"><a rel="nofollow" class="result__a" href="https://duckduckgo.com/y.js?ad_domain=ads.example&amp;u3=x">Buy widgets now</a></h2>
  <a class="result__snippet" href="https://duckduckgo.com/y.js?ad_domain=ads.example">Sponsored.</a>
</div>
<div class="result results_links results_links_deep web-result">
  <div class="links_main links_deep result__body">
    <h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fgo.dev%2Fdoc%2Feffective_go%3Fx%3D1%26y%3D2&amp;rut=abc123">Effective <b>Go</b> - The Go Programming Language</a></h2>
    <div class="result__extras"><a class="result__url" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fgo.dev%2Fdoc%2Feffective_go">go.dev/doc/effective_go</a></div>
    <a class="result__snippet" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fgo.dev%2Fdoc%2Feffective_go">Tips for writing clear, idiomatic <b>Go</b> code &amp; more.</a>
  </div>
</div>
<div class="result results_links results_links_deep web-result">
  <div class="links_main links_deep result__body">
    <h2 class="result__title"><a rel="nofollow" class="result__a" href="https://pkg.go.dev/context">context package</a></h2>
    <a class="result__snippet" href="https://pkg.go.dev/context">Package   context defines the Context type.</a>
  </div>
</div>
<div class="result results_links results_links_deep web-result">
  <div class="links_main links_deep result__body">
    <h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fblog.example.org%2Fgo&amp;rut=def">A [bracketed] blog</a></h2>
  </div>
</div>
</div></body></html>`

const braveJSON = `{"type":"search","query":{"original":"go context"},"web":{"type":"search","results":[
 {"title":"context package - <strong>context</strong> - Go Packages","url":"https://pkg.go.dev/context","description":"Package <strong>context</strong> defines the Context type.","age":"1 day ago"},
 {"title":"Go Concurrency Patterns: Context","url":"https://go.dev/blog/context","description":"How to use &amp; cancel contexts."},
 {"title":"no url","url":"","description":"skipped"}
]}}`

const searxngJSON = `{"query":"go context","number_of_results":0,"results":[
 {"url":"https://go.dev/blog/context","title":"Go Concurrency Patterns: Context","content":"Contexts carry deadlines.","engine":"duckduckgo","engines":["duckduckgo","brave"],"score":2.5,"category":"general"},
 {"url":"https://stackoverflow.com/q/1","title":"How to cancel a goroutine?","content":"Use a context.","engine":"google","score":1.0}
],"answers":[],"suggestions":[],"unresponsive_engines":[]}`

// searchServer records the requests it gets and answers with handler.
type searchServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests []*http.Request
}

func newSearchServer(t *testing.T, handler http.HandlerFunc) *searchServer {
	s := &searchServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, r.Clone(r.Context()))
		s.mu.Unlock()
		handler(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *searchServer) last(t *testing.T) *http.Request {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.requests) == 0 {
		t.Fatal("the provider sent no request")
	}
	return s.requests[len(s.requests)-1]
}

func serve(contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		io.WriteString(w, body)
	}
}

func searchSettings(provider, baseURL, key string) func() *settings.Settings {
	return testSettings(func(s *settings.Settings) {
		s.WebSearch = settings.WebSearch{Provider: provider, BaseURL: baseURL, APIKey: key}
	})
}

func TestWebSearchProviders(t *testing.T) {
	tests := []struct {
		name      string
		provider  string
		key       string
		handler   http.HandlerFunc
		wantPath  string
		wantQuery url.Values
		wantHdr   map[string]string
		wantText  []string
		absent    []string
		wantURLs  []string
	}{
		{
			name: "duckduckgo html page", provider: "", handler: serve("text/html", duckDuckGoPage),
			wantPath: "/html/", wantQuery: url.Values{"q": {"effective go"}},
			wantText: []string{
				`Web search results for "effective go" (duckduckgo, 3 results):`,
				"1. [Effective Go - The Go Programming Language](https://go.dev/doc/effective_go?x=1&y=2)\n   Tips for writing clear, idiomatic Go code & more.",
				"2. [context package](https://pkg.go.dev/context)\n   Package context defines the Context type.",
				`3. [A \[bracketed\] blog](https://blog.example.org/go)`,
				"cite the pages as Markdown links",
			},
			absent:   []string{"Buy widgets", "ads.example", "rut="},
			wantURLs: []string{"https://go.dev/doc/effective_go?x=1&y=2", "https://pkg.go.dev/context", "https://blog.example.org/go"},
		},
		{
			name: "brave api", provider: "brave", key: "brave-key", handler: serve("application/json", braveJSON),
			wantPath: "/res/v1/web/search", wantQuery: url.Values{"q": {"effective go"}, "count": {"10"}},
			wantHdr: map[string]string{"X-Subscription-Token": "brave-key", "Accept": "application/json"},
			wantText: []string{
				"(brave, 2 results)",
				"1. [context package - context - Go Packages](https://pkg.go.dev/context)\n   Package context defines the Context type.",
				"2. [Go Concurrency Patterns: Context](https://go.dev/blog/context)\n   How to use & cancel contexts.",
			},
			absent:   []string{"<strong>", "skipped"},
			wantURLs: []string{"https://pkg.go.dev/context", "https://go.dev/blog/context"},
		},
		{
			name: "searxng json", provider: "SearXNG", handler: serve("application/json", searxngJSON),
			wantPath: "/search", wantQuery: url.Values{"q": {"effective go"}, "format": {"json"}},
			wantText: []string{
				"(searxng, 2 results)",
				"1. [Go Concurrency Patterns: Context](https://go.dev/blog/context)\n   Contexts carry deadlines.",
				"2. [How to cancel a goroutine?](https://stackoverflow.com/q/1)\n   Use a context.",
			},
			wantURLs: []string{"https://go.dev/blog/context", "https://stackoverflow.com/q/1"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newSearchServer(t, tc.handler)
			tool := NewWebSearch(searchSettings(tc.provider, srv.URL, tc.key))
			res := call(t, tool, map[string]any{"query": "effective go"})
			if res.IsError {
				t.Fatal(res.Text())
			}
			mustContain(t, res.Text(), tc.wantText...)
			for _, a := range tc.absent {
				if strings.Contains(res.Text(), a) {
					t.Errorf("text contains %q:\n%s", a, res.Text())
				}
			}
			req := srv.last(t)
			if req.Method != http.MethodGet || req.URL.Path != tc.wantPath {
				t.Errorf("request %s %s, want GET %s", req.Method, req.URL.Path, tc.wantPath)
			}
			for k, v := range tc.wantQuery {
				if got := req.URL.Query()[k]; strings.Join(got, ",") != strings.Join(v, ",") {
					t.Errorf("query %s = %v, want %v", k, got, v)
				}
			}
			for k, v := range tc.wantHdr {
				if got := req.Header.Get(k); got != v {
					t.Errorf("header %s = %q, want %q", k, got, v)
				}
			}
			out, ok := res.Structured.(WebSearchOutput)
			if !ok || out.Query != "effective go" || len(out.Results) != 1 || out.Results[0].ToolUseID != "call-1" {
				t.Fatalf("structured %#v", res.Structured)
			}
			var urls []string
			for _, r := range out.Results[0].Content {
				urls = append(urls, r.URL)
			}
			if strings.Join(urls, " ") != strings.Join(tc.wantURLs, " ") {
				t.Errorf("structured urls %v, want %v", urls, tc.wantURLs)
			}
		})
	}
}

func TestWebSearchDomainFilters(t *testing.T) {
	page := `{"results":[
	 {"url":"https://example.com/a","title":"apex","content":""},
	 {"url":"https://docs.example.com/b","title":"subdomain","content":""},
	 {"url":"https://notexample.com/c","title":"lookalike","content":""},
	 {"url":"https://other.org/d","title":"other","content":""},
	 {"url":"https://ads.other.org/e","title":"other ads","content":""}
	]}`
	tests := []struct {
		name      string
		allowed   []string
		blocked   []string
		wantQuery string
		want      []string
		wantNotes []string
	}{
		{name: "no filter", wantQuery: "widgets", want: []string{"apex", "subdomain", "lookalike", "other", "other ads"}},
		{name: "allowed with subdomains", allowed: []string{"example.com"}, wantQuery: "widgets site:example.com",
			want: []string{"apex", "subdomain"}, wantNotes: []string{"3 results outside allowed_domains left out"}},
		{name: "allowed written as a URL", allowed: []string{"https://Docs.Example.com/path"}, wantQuery: "widgets site:docs.example.com",
			want: []string{"subdomain"}},
		{name: "two allowed: no site: operator", allowed: []string{"example.com", "other.org"}, wantQuery: "widgets",
			want: []string{"apex", "subdomain", "other", "other ads"}},
		{name: "blocked with subdomains", blocked: []string{"other.org", "*.example.com"}, wantQuery: "widgets",
			want: []string{"lookalike"}, wantNotes: []string{"4 results from blocked_domains left out"}},
		{name: "allowed and blocked", allowed: []string{"other.org"}, blocked: []string{"ads.other.org"}, wantQuery: "widgets site:other.org",
			want: []string{"other"}},
	}
	srv := newSearchServer(t, serve("application/json", page))
	tool := NewWebSearch(searchSettings("searxng", srv.URL, ""))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, tool, map[string]any{"query": "widgets", "allowed_domains": tc.allowed, "blocked_domains": tc.blocked})
			if res.IsError {
				t.Fatal(res.Text())
			}
			if q := srv.last(t).URL.Query().Get("q"); q != tc.wantQuery {
				t.Errorf("sent query %q, want %q", q, tc.wantQuery)
			}
			var titles []string
			for _, r := range res.Structured.(WebSearchOutput).Results[0].Content {
				titles = append(titles, r.Title)
			}
			if strings.Join(titles, ",") != strings.Join(tc.want, ",") {
				t.Errorf("kept %v, want %v", titles, tc.want)
			}
			mustContain(t, res.Text(), tc.wantNotes...)
		})
	}
}

func TestWebSearchFailures(t *testing.T) {
	tests := []struct {
		name     string
		provider string
		key      string
		handler  http.HandlerFunc
		wantText string
	}{
		{"brave without key", "brave", "", nil, "needs an API key: set webSearch.apiKey"},
		{"unknown provider", "altavista", "", nil, `unknown webSearch.provider "altavista"`},
		{"brave refuses the key", "brave", "bad", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
		}, "Brave refused the API key (401 Unauthorized)"},
		{"brave rate limit", "brave", "k", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusTooManyRequests)
		}, "rate limit"},
		{"searxng without json format", "searxng", "", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusForbidden)
		}, "enable json under search.formats"},
		{"searxng broken json", "searxng", "", serve("application/json", `{"results": [`), "did not answer the expected JSON"},
		{"duckduckgo challenge", "duckduckgo", "", serve("text/html", `<html><body><div class="anomaly-modal__title">Unfortunately, bots use DuckDuckGo too.</div></body></html>`), "bot challenge"},
		{"duckduckgo server error", "duckduckgo", "", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadGateway)
			io.WriteString(w, "upstream down")
		}, "DuckDuckGo answered 502 Bad Gateway: upstream down"},
		{"no answer", "searxng", "", func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
		}, "did not answer within"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := "http://127.0.0.1:1"
			if tc.handler != nil {
				base = newSearchServer(t, tc.handler).URL
			}
			cfg := testSettings(func(s *settings.Settings) {
				s.WebSearch = settings.WebSearch{Provider: tc.provider, BaseURL: base, APIKey: tc.key}
				s.Web.TotalTimeoutMs = 200
			})
			res := call(t, NewWebSearch(cfg), map[string]any{"query": "anything"})
			if !res.IsError || !strings.HasPrefix(res.Text(), "Error: ") {
				t.Fatalf("want an error result, got %q", res.Text())
			}
			mustContain(t, res.Text(), tc.wantText)
		})
	}
}

func TestWebSearchNoResults(t *testing.T) {
	srv := newSearchServer(t, serve("application/json", `{"web":{"results":[]}}`))
	res := call(t, NewWebSearch(searchSettings("brave", srv.URL, "k")), map[string]any{"query": "zxqv"})
	if res.IsError {
		t.Fatal(res.Text())
	}
	mustContain(t, res.Text(), `No results for "zxqv" (brave).`, "Try other words")
	if res := call(t, NewWebSearch(searchSettings("brave", srv.URL, "k")), map[string]any{"query": "  "}); !res.IsError {
		t.Errorf("an empty query was searched: %q", res.Text())
	}
}

func TestUnwrapDuckDuckGoURL(t *testing.T) {
	tests := map[string]string{
		"//duckduckgo.com/l/?uddg=https%3A%2F%2Fa.example%2Fp%3Fq%3D1&rut=x": "https://a.example/p?q=1",
		"/l/?uddg=https%3A%2F%2Fb.example%2F":                                "https://b.example/",
		"https://c.example/direct":                                           "https://c.example/direct",
		"https://duckduckgo.com/y.js?ad_domain=x":                            "",
		"javascript:alert(1)":                                                "",
	}
	for in, want := range tests {
		if got := unwrapDuckDuckGoURL(in); got != want {
			t.Errorf("unwrap(%q) = %q, want %q", in, got, want)
		}
	}
}

// listProvider is a SearchProvider embedders might plug in: a fixed list.
type listProvider struct {
	results []SearchResult
	gotN    int
}

func (p *listProvider) Search(_ context.Context, _ string, n int) ([]SearchResult, error) {
	p.gotN = n
	return p.results, nil
}

func TestWebSearchWithOwnProvider(t *testing.T) {
	p := &listProvider{results: []SearchResult{
		{Title: "Kept", URL: "https://kept.example/a", Snippet: "s1"},
		{Title: "Dropped", URL: "https://dropped.example/b"},
	}}
	tool := NewWebSearch(searchSettings("no-such-provider", "", ""), WithSearchProvider(p))
	res := call(t, tool, map[string]any{"query": "q", "blocked_domains": []string{"dropped.example"}})
	if res.IsError {
		t.Fatal(res.Text())
	}
	mustContain(t, res.Text(), "(custom, 1 result)", "1. [Kept](https://kept.example/a)\n   s1", "1 result from blocked_domains left out")
	if p.gotN != searchResultsFiltered {
		t.Errorf("asked for %d results with a filter, want %d", p.gotN, searchResultsFiltered)
	}
}
