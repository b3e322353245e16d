// Package web holds the network tools: WebFetch (a page as Markdown, cached
// for 15 minutes, paged by character offset, optionally answered by a
// chat-completions model) and WebSearch (results from a SearchProvider:
// DuckDuckGo's HTML page by default, the Brave Search API or a SearXNG
// instance by setting).
//
// Both read their limits from the live settings on every call (webFetch.*,
// webSearch.*, agent.*), so a workspace/didChangeConfiguration takes effect
// at the next call.
package web
