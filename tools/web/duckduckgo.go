package web

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/net/html"
)

// duckDuckGoBase serves DuckDuckGo's script-free results page at /html/.
const duckDuckGoBase = "https://html.duckduckgo.com"

// DuckDuckGo searches through DuckDuckGo's HTML results page. It needs no
// key; DuckDuckGo may answer automated traffic with a challenge page, which
// is reported as an error.
type DuckDuckGo struct {
	client  *http.Client
	baseURL string
}

// NewDuckDuckGo returns the provider; baseURL replaces
// https://html.duckduckgo.com when not empty.
func NewDuckDuckGo(client *http.Client, baseURL string) *DuckDuckGo {
	return &DuckDuckGo{client: client, baseURL: baseURL}
}

// Search implements SearchProvider.
func (d *DuckDuckGo) Search(ctx context.Context, query string, n int) ([]SearchResult, error) {
	req, err := http.NewRequest(http.MethodGet, endpoint(d.baseURL, duckDuckGoBase, "/html/")+"?q="+url.QueryEscape(query), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/html")
	body, err := getSearch(ctx, d.client, req, func(status int, body string) error {
		if status == http.StatusTooManyRequests || status == http.StatusForbidden {
			return &ProviderError{Msg: fmt.Sprintf("DuckDuckGo refused the search (%d %s); it limits automated use. Try again later, or configure webSearch.provider brave or searxng", status, http.StatusText(status))}
		}
		return &ProviderError{Msg: fmt.Sprintf("DuckDuckGo answered %d %s: %s", status, http.StatusText(status), body)}
	})
	if err != nil {
		return nil, err
	}
	results, err := parseDuckDuckGo(body)
	if err != nil {
		return nil, err
	}
	if len(results) == 0 && bytes.Contains(body, []byte("anomaly")) {
		return nil, &ProviderError{Msg: "DuckDuckGo answered with a bot challenge instead of results. Try again later, or configure webSearch.provider brave or searxng"}
	}
	if len(results) > n {
		results = results[:n]
	}
	return results, nil
}

// parseDuckDuckGo reads the results of DuckDuckGo's HTML page: each result
// has a link with class result__a (the title) and an element with class
// result__snippet; ads (inside .result--ad) are skipped.
func parseDuckDuckGo(page []byte) ([]SearchResult, error) {
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return nil, fmt.Errorf("parse DuckDuckGo's page: %w", err)
	}
	var results []SearchResult
	var walk func(n *html.Node, inAd bool)
	walk = func(n *html.Node, inAd bool) {
		if n.Type == html.ElementNode {
			inAd = inAd || hasClass(n, "result--ad")
			switch {
			case inAd:
			case n.Data == "a" && hasClass(n, "result__a"):
				if u := unwrapDuckDuckGoURL(attr(n, "href")); u != "" {
					results = append(results, SearchResult{Title: plainText(nodeText(n)), URL: u})
				}
				return
			case hasClass(n, "result__snippet"):
				if len(results) > 0 && results[len(results)-1].Snippet == "" {
					results[len(results)-1].Snippet = plainText(nodeText(n))
				}
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inAd)
		}
	}
	walk(doc, false)
	return results, nil
}

// unwrapDuckDuckGoURL turns DuckDuckGo's click-tracking link
// (//duckduckgo.com/l/?uddg=<escaped target>&rut=...) into the target.
func unwrapDuckDuckGoURL(href string) string {
	if strings.HasPrefix(href, "//") {
		href = "https:" + href
	}
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	if strings.HasSuffix(u.Hostname(), "duckduckgo.com") || u.Host == "" {
		if target := u.Query().Get("uddg"); target != "" {
			return target
		}
		if strings.HasPrefix(u.Path, "/y.js") {
			return "" // an ad
		}
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return ""
	}
	return u.String()
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *html.Node, class string) bool {
	for _, c := range strings.Fields(attr(n, "class")) {
		if c == class {
			return true
		}
	}
	return false
}
