package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
)

// SearXNG searches through a SearXNG instance's JSON API
// ({baseUrl}/search?q=...&format=json). The instance must allow the json
// format (search.formats in its settings.yml).
type SearXNG struct {
	client  *http.Client
	baseURL string
}

// NewSearXNG returns the provider for the instance at baseURL.
func NewSearXNG(client *http.Client, baseURL string) *SearXNG {
	return &SearXNG{client: client, baseURL: baseURL}
}

// searxngResponse is the part of SearXNG's JSON answer used here.
type searxngResponse struct {
	Results []struct {
		Title   string `json:"title"`
		URL     string `json:"url"`
		Content string `json:"content"`
	} `json:"results"`
}

// Search implements SearchProvider.
func (s *SearXNG) Search(ctx context.Context, query string, n int) ([]SearchResult, error) {
	q := url.Values{"q": {query}, "format": {"json"}}
	req, err := http.NewRequest(http.MethodGet, endpoint(s.baseURL, "", "/search")+"?"+q.Encode(), nil)
	if err != nil {
		return nil, &ProviderError{Msg: fmt.Sprintf("webSearch.baseUrl %q is not a valid URL: %v", s.baseURL, err)}
	}
	req.Header.Set("Accept", "application/json")
	body, err := getSearch(ctx, s.client, req, func(status int, body string) error {
		if status == http.StatusForbidden {
			return &ProviderError{Msg: fmt.Sprintf("the SearXNG instance %s refused format=json (403); enable json under search.formats in its settings.yml", s.baseURL)}
		}
		if status == http.StatusTooManyRequests {
			return &ProviderError{Msg: fmt.Sprintf("the SearXNG instance %s is rate-limiting (429); try again later", s.baseURL)}
		}
		return &ProviderError{Msg: fmt.Sprintf("the SearXNG instance %s answered %d %s: %s", s.baseURL, status, http.StatusText(status), body)}
	})
	if err != nil {
		return nil, err
	}
	var resp searxngResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, &ProviderError{Msg: fmt.Sprintf("the SearXNG instance %s did not answer the expected JSON: %v", s.baseURL, err)}
	}
	var results []SearchResult
	for _, r := range resp.Results {
		if r.URL == "" {
			continue
		}
		results = append(results, SearchResult{Title: plainText(r.Title), URL: r.URL, Snippet: plainText(r.Content)})
	}
	if len(results) > n {
		results = results[:n]
	}
	return results, nil
}
