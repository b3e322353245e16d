package web

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/net/html"

	"github.com/toolhost/toolhost/settings"
)

// SearchResult is one hit of a web search.
type SearchResult struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet,omitempty"`
}

// SearchProvider runs a web search and returns up to n results, best first.
type SearchProvider interface {
	Search(ctx context.Context, query string, n int) ([]SearchResult, error)
}

// ProviderError is a search failure the model or the user can act on
// (a refused key, a rate limit, a misconfigured instance).
type ProviderError struct{ Msg string }

func (e *ProviderError) Error() string { return e.Msg }

// Providers by their webSearch.provider name.
const (
	ProviderDuckDuckGo = "duckduckgo"
	ProviderBrave      = "brave"
	ProviderSearXNG    = "searxng"
)

// maxSearchResponseBytes caps what a provider may send back.
const maxSearchResponseBytes = 5 << 20

// NewProvider builds the provider the settings name (duckduckgo when
// empty). BaseURL replaces the scheme and host of the provider's endpoint
// (the whole root of a SearXNG instance); the provider's own path is kept.
func NewProvider(cfg settings.WebSearch, client *http.Client) (SearchProvider, error) {
	switch strings.ToLower(strings.TrimSpace(cfg.Provider)) {
	case "", ProviderDuckDuckGo:
		return NewDuckDuckGo(client, cfg.BaseURL), nil
	case ProviderBrave:
		if cfg.APIKey == "" {
			return nil, &ProviderError{Msg: "the Brave provider needs an API key: set webSearch.apiKey to your Brave Search subscription token"}
		}
		return NewBrave(client, cfg.BaseURL, cfg.APIKey), nil
	case ProviderSearXNG:
		if cfg.BaseURL == "" {
			return nil, &ProviderError{Msg: "the SearXNG provider needs the instance's address: set webSearch.baseUrl (e.g. http://localhost:8888)"}
		}
		return NewSearXNG(client, cfg.BaseURL), nil
	}
	return nil, &ProviderError{Msg: fmt.Sprintf("unknown webSearch.provider %q; use duckduckgo, brave or searxng", cfg.Provider)}
}

// endpoint joins a provider path to base (or the default base).
func endpoint(base, defaultBase, path string) string {
	if base == "" {
		base = defaultBase
	}
	return strings.TrimSuffix(base, "/") + path
}

// getSearch sends a search request and returns at most
// maxSearchResponseBytes of the body of a 2xx answer; other statuses become
// errors through describe.
func getSearch(ctx context.Context, client *http.Client, req *http.Request, describe func(status int, body string) error) ([]byte, error) {
	req = req.WithContext(ctx)
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", userAgent)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxSearchResponseBytes))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		snippet := strings.Join(strings.Fields(string(body)), " ")
		if len(snippet) > 200 {
			snippet = snippet[:200] + "…"
		}
		return nil, describe(resp.StatusCode, snippet)
	}
	return body, nil
}

// plainText removes the markup some providers put in snippets (<strong>,
// entities) and collapses white space.
func plainText(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return strings.Join(strings.Fields(s), " ")
	}
	var b strings.Builder
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return strings.Join(strings.Fields(b.String()), " ")
		case html.TextToken:
			b.Write(z.Text())
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			b.WriteByte(' ')
		}
	}
}

// normaliseDomain turns what the model wrote ("https://Docs.Example.com/x",
// "*.example.com", ".example.com") into a bare lower-case host name.
func normaliseDomain(d string) string {
	d = strings.ToLower(strings.TrimSpace(d))
	if strings.Contains(d, "://") {
		if u, err := url.Parse(d); err == nil {
			d = u.Hostname()
		}
	}
	d = strings.TrimPrefix(d, "*.")
	d = strings.Trim(d, ".")
	if i := strings.IndexAny(d, "/:"); i >= 0 {
		d = d[:i]
	}
	return d
}

// hostMatches reports whether host is domain or one of its subdomains.
func hostMatches(host, domain string) bool {
	return domain != "" && (host == domain || strings.HasSuffix(host, "."+domain))
}

// filterResults keeps the results whose host is under one of allowed (when
// any are given) and under none of blocked. It returns how many of each kind
// were dropped.
func filterResults(results []SearchResult, allowed, blocked []string) (kept []SearchResult, notAllowed, wasBlocked int) {
	norm := func(ds []string) []string {
		var out []string
		for _, d := range ds {
			if n := normaliseDomain(d); n != "" {
				out = append(out, n)
			}
		}
		return out
	}
	allow, block := norm(allowed), norm(blocked)
	matchAny := func(host string, ds []string) bool {
		for _, d := range ds {
			if hostMatches(host, d) {
				return true
			}
		}
		return false
	}
	for _, r := range results {
		u, err := url.Parse(r.URL)
		if err != nil || u.Hostname() == "" {
			continue
		}
		host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
		switch {
		case len(allow) > 0 && !matchAny(host, allow):
			notAllowed++
		case matchAny(host, block):
			wasBlocked++
		default:
			kept = append(kept, r)
		}
	}
	return kept, notAllowed, wasBlocked
}
