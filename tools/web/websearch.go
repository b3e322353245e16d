package web

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
)

//go:embed websearch.md
var webSearchDescription string

// Result counts of WebSearch.
const (
	searchResults = 10
	// searchResultsFiltered are asked for when domain filters will drop some.
	searchResultsFiltered = 20
)

var webSearchSchema = tools.SchemaOf[webSearchParams](nil)

type webSearchParams struct {
	Query          string   `json:"query" jsonschema:"What to search for." schema:"minLength=2"`
	AllowedDomains []string `json:"allowed_domains,omitempty" jsonschema:"Keep only results from these domains (their subdomains included)."`
	BlockedDomains []string `json:"blocked_domains,omitempty" jsonschema:"Drop results from these domains (their subdomains included)."`
}

// WebSearchOutput is the structured result, in Claude Code's shape.
type WebSearchOutput struct {
	Query           string           `json:"query"`
	Results         []WebSearchBlock `json:"results"`
	DurationSeconds float64          `json:"durationSeconds"`
	SearchCount     int              `json:"searchCount"`
	Provider        string           `json:"provider"`
}

// WebSearchBlock groups the hits of one search.
type WebSearchBlock struct {
	ToolUseID string         `json:"tool_use_id"`
	Content   []SearchResult `json:"content"`
}

// WebSearch searches the web through the configured SearchProvider.
type WebSearch struct {
	cfg      func() *settings.Settings
	clients  *clients
	provider SearchProvider
}

// NewWebSearch returns the WebSearch tool reading webSearch.* (and the
// webFetch timeouts) from cfg on every call.
func NewWebSearch(cfg func() *settings.Settings, opts ...Option) *WebSearch {
	o := buildOptions(opts)
	return &WebSearch{cfg: cfg, clients: &clients{injected: o.client}, provider: o.provider}
}

func (*WebSearch) Name() string                 { return "WebSearch" }
func (*WebSearch) Description() string          { return webSearchDescription }
func (*WebSearch) InputSchema() json.RawMessage { return webSearchSchema.JSON() }
func (*WebSearch) SideEffect() tools.SideEffect { return tools.SideEffectNetwork }

// Docs implements tools.Documented.
func (*WebSearch) Docs() tools.Docs {
	return tools.Docs{
		Short: "Search the web; results as Markdown links with snippets.",
		Long: "The provider is chosen by webSearch.provider: duckduckgo (the default; its HTML results " +
			"page, no key), brave (the Brave Search API; webSearch.apiKey is the subscription token) or " +
			"searxng (a SearXNG instance at webSearch.baseUrl with the json format enabled). " +
			"webSearch.baseUrl also replaces the address of DuckDuckGo or Brave (for a proxy or a test " +
			"server). allowed_domains and blocked_domains filter the results, subdomains included; with " +
			"exactly one allowed domain the query is also narrowed with site:. The webFetch timeouts apply.",
		Examples: []tools.Example{
			{Title: "Search", Input: json.RawMessage(`{"query":"go 1.26 release notes"}`)},
			{Title: "Only the official docs", Input: json.RawMessage(`{"query":"context cancellation","allowed_domains":["go.dev"]}`)},
		},
	}
}

// Access implements tools.AccessDescriber. The host reached is the
// provider's, decided by settings, so no domain is claimed.
func (*WebSearch) Access(json.RawMessage) tools.Access { return tools.Access{} }

// Execute runs the search and lists the results.
func (t *WebSearch) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	start := time.Now()
	var p webSearchParams
	if err := json.Unmarshal(call.Input, &p); err != nil {
		return tools.ErrorResult("the input is not a valid WebSearch input (%v); send {\"query\": \"...\"}.", err), nil
	}
	query := strings.TrimSpace(p.Query)
	if query == "" {
		return tools.ErrorResult("query is empty; say what to search for."), nil
	}
	s := currentSettings(t.cfg)
	lim := limitsOf(t.cfg)
	provider, name := t.provider, "custom"
	if provider == nil {
		var err error
		name = strings.ToLower(strings.TrimSpace(s.WebSearch.Provider))
		if name == "" {
			name = ProviderDuckDuckGo
		}
		provider, err = NewProvider(s.WebSearch, t.clients.get(lim.connect))
		if err != nil {
			return tools.ErrorResult("%v.", err), nil
		}
	}

	sent, n := query, searchResults
	if len(p.AllowedDomains) > 0 || len(p.BlockedDomains) > 0 {
		n = searchResultsFiltered
	}
	if len(p.AllowedDomains) == 1 {
		if d := normaliseDomain(p.AllowedDomains[0]); d != "" && !strings.Contains(query, "site:") {
			sent = query + " site:" + d
		}
	}
	searchCtx, cancel := context.WithTimeout(ctx, lim.total)
	defer cancel()
	found, err := provider.Search(searchCtx, sent, n)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var pe *ProviderError
		switch {
		case errors.As(err, &pe):
			return tools.ErrorResult("web search failed: %s.", pe.Msg), nil
		case errors.Is(searchCtx.Err(), context.DeadlineExceeded):
			return tools.ErrorResult("the %s search did not answer within %s (the webFetch.totalTimeoutMs setting); try again later.", name, lim.total), nil
		default:
			return tools.ErrorResult("web search through %s failed: %v. Try again later; if it keeps failing, the user can choose another webSearch.provider.", name, err), nil
		}
	}
	kept, notAllowed, blocked := filterResults(found, p.AllowedDomains, p.BlockedDomains)
	if len(kept) > searchResults {
		kept = kept[:searchResults]
	}
	text := formatSearchResults(query, name, kept, notAllowed, blocked)
	res := tools.TextResult(text)
	res.Structured = WebSearchOutput{
		Query:           query,
		Results:         []WebSearchBlock{{ToolUseID: call.ID, Content: append([]SearchResult{}, kept...)}},
		DurationSeconds: time.Since(start).Seconds(),
		SearchCount:     1,
		Provider:        name,
	}
	return res, nil
}

func formatSearchResults(query, provider string, results []SearchResult, notAllowed, blocked int) string {
	var b strings.Builder
	if len(results) == 0 {
		fmt.Fprintf(&b, "No results for %q (%s). Try other words, fewer filters, or a broader query.", query, provider)
	} else {
		fmt.Fprintf(&b, "Web search results for %q (%s, %s):\n", query, provider, count(len(results), "result"))
		for i, r := range results {
			title := r.Title
			if title == "" {
				title = r.URL
			}
			fmt.Fprintf(&b, "\n%d. [%s](%s)", i+1, escapeLinkText(title), r.URL)
			if r.Snippet != "" {
				fmt.Fprintf(&b, "\n   %s", r.Snippet)
			}
		}
	}
	if notAllowed > 0 {
		fmt.Fprintf(&b, "\n\n%s outside allowed_domains left out.", count(notAllowed, "result"))
	}
	if blocked > 0 {
		fmt.Fprintf(&b, "\n\n%s from blocked_domains left out.", count(blocked, "result"))
	}
	if len(results) > 0 {
		b.WriteString("\n\nWhen you use these results, cite the pages as Markdown links. Read a page with WebFetch for more than its snippet.")
	}
	return b.String()
}

// count is "1 result", "2 results".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// escapeLinkText keeps a title from breaking the Markdown link around it.
func escapeLinkText(s string) string {
	return strings.NewReplacer(`\`, `\\`, `[`, `\[`, `]`, `\]`).Replace(s)
}
