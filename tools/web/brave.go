package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// braveBase serves the Brave Search API at /res/v1/web/search.
const braveBase = "https://api.search.brave.com"

// braveMaxCount is the most results Brave returns for one request.
const braveMaxCount = 20

// Brave searches through the Brave Search API (a subscription token is
// needed, sent as X-Subscription-Token).
type Brave struct {
	client  *http.Client
	baseURL string
	apiKey  string
}

// NewBrave returns the provider; baseURL replaces https://api.search.brave.com
// when not empty.
func NewBrave(client *http.Client, baseURL, apiKey string) *Brave {
	return &Brave{client: client, baseURL: baseURL, apiKey: apiKey}
}

// braveResponse is the part of Brave's WebSearchApiResponse used here.
type braveResponse struct {
	Web struct {
		Results []struct {
			Title       string `json:"title"`
			URL         string `json:"url"`
			Description string `json:"description"`
		} `json:"results"`
	} `json:"web"`
}

// Search implements SearchProvider.
func (b *Brave) Search(ctx context.Context, query string, n int) ([]SearchResult, error) {
	count := min(max(n, 1), braveMaxCount)
	q := url.Values{"q": {query}, "count": {strconv.Itoa(count)}}
	req, err := http.NewRequest(http.MethodGet, endpoint(b.baseURL, braveBase, "/res/v1/web/search")+"?"+q.Encode(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Subscription-Token", b.apiKey)
	body, err := getSearch(ctx, b.client, req, func(status int, body string) error {
		switch status {
		case http.StatusUnauthorized, http.StatusForbidden, 422:
			return &ProviderError{Msg: fmt.Sprintf("Brave refused the API key (%d %s); check webSearch.apiKey", status, http.StatusText(status))}
		case http.StatusTooManyRequests:
			return &ProviderError{Msg: "Brave's rate limit for this key is reached (429); try again later"}
		}
		return &ProviderError{Msg: fmt.Sprintf("Brave answered %d %s: %s", status, http.StatusText(status), body)}
	})
	if err != nil {
		return nil, err
	}
	var resp braveResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, &ProviderError{Msg: fmt.Sprintf("Brave's answer is not the expected JSON: %v", err)}
	}
	var results []SearchResult
	for _, r := range resp.Web.Results {
		if r.URL == "" {
			continue
		}
		results = append(results, SearchResult{Title: plainText(r.Title), URL: r.URL, Snippet: plainText(r.Description)})
	}
	if len(results) > n {
		results = results[:n]
	}
	return results, nil
}
