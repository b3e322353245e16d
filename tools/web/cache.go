package web

import (
	"container/list"
	"sync"
	"time"
)

// Cache bounds: pages stay 15 minutes, at most 64 of them and 32 MiB of text.
const (
	cacheTTL        = 15 * time.Minute
	cacheMaxEntries = 64
	cacheMaxBytes   = 32 << 20
)

// pageCache keeps fetched pages by URL, least recently used out first.
// Safe for concurrent use.
type pageCache struct {
	ttl        time.Duration
	maxEntries int
	maxBytes   int
	now        func() time.Time

	mu sync.Mutex
	// byURL maps a URL to its element in order.
	byURL map[string]*list.Element
	// order holds *cacheEntry, most recently used first.
	order *list.List
	// bytes is the sum of the cached texts' lengths.
	bytes int
}

type cacheEntry struct {
	url     string
	page    *page
	expires time.Time
}

func newPageCache(now func() time.Time) *pageCache {
	return &pageCache{
		ttl: cacheTTL, maxEntries: cacheMaxEntries, maxBytes: cacheMaxBytes, now: now,
		byURL: map[string]*list.Element{}, order: list.New(),
	}
}

// get returns the page cached for url, if it has not expired.
func (c *pageCache) get(url string) (*page, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byURL[url]
	if !ok {
		return nil, false
	}
	e := el.Value.(*cacheEntry)
	if !c.now().Before(e.expires) {
		c.remove(el)
		return nil, false
	}
	c.order.MoveToFront(el)
	return e.page, true
}

// put caches p under url, evicting the least recently used pages to stay
// within the bounds. A page larger than the whole cache is not kept.
func (c *pageCache) put(url string, p *page) {
	size := len(p.text)
	if size > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byURL[url]; ok {
		c.remove(el)
	}
	c.byURL[url] = c.order.PushFront(&cacheEntry{url: url, page: p, expires: c.now().Add(c.ttl)})
	c.bytes += size
	for c.order.Len() > c.maxEntries || c.bytes > c.maxBytes {
		c.remove(c.order.Back())
	}
}

// remove drops one element; c.mu must be held.
func (c *pageCache) remove(el *list.Element) {
	e := el.Value.(*cacheEntry)
	c.order.Remove(el)
	delete(c.byURL, e.url)
	c.bytes -= len(e.page.text)
}
