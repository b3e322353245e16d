package web

import (
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/toolhost/toolhost/settings"
)

// userAgent identifies toolhost to the sites it reads.
const userAgent = "Mozilla/5.0 (compatible; toolhost/1.0; +https://github.com/toolhost/toolhost)"

// Option configures WebFetch and WebSearch.
type Option func(*options)

type options struct {
	client    *http.Client
	now       func() time.Time
	pageChars int
	// maxText caps the Markdown of a page (maxPageText).
	maxText  int
	provider SearchProvider
}

// WithHTTPClient makes the tools send their requests through c (its
// Transport and Jar; its CheckRedirect is replaced, since WebFetch follows
// redirects itself, and its connect timeout is then c's business). The
// total timeout and size cap of the settings still apply.
func WithHTTPClient(c *http.Client) Option {
	return func(o *options) { o.client = c }
}

// WithSearchProvider makes WebSearch use p instead of the provider the
// settings name (for embedders with their own search backend).
func WithSearchProvider(p SearchProvider) Option {
	return func(o *options) { o.provider = p }
}

// WithClock sets the clock the page cache expires entries by.
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.now = now }
}

// WithPageSize sets how many characters of page text one WebFetch result
// holds (default 50,000).
func WithPageSize(chars int) Option {
	return func(o *options) { o.pageChars = chars }
}

func buildOptions(opts []Option) options {
	o := options{now: time.Now, pageChars: defaultPageChars, maxText: maxPageText}
	for _, f := range opts {
		f(&o)
	}
	if o.pageChars <= 0 {
		o.pageChars = defaultPageChars
	}
	return o
}

// clients hands out the HTTP client for a call. Without an injected client
// it keeps one transport (so connections are reused) and rebuilds it when
// webFetch.connectTimeoutMs changes.
type clients struct {
	injected *http.Client

	mu             sync.Mutex
	connectTimeout time.Duration
	transport      *http.Transport
}

// get returns a client that never follows redirects on its own.
func (c *clients) get(connectTimeout time.Duration) *http.Client {
	if c.injected != nil {
		cl := *c.injected
		cl.CheckRedirect = noRedirects
		return &cl
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.transport == nil || c.connectTimeout != connectTimeout {
		if c.transport != nil {
			c.transport.CloseIdleConnections()
		}
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.DialContext = (&net.Dialer{Timeout: connectTimeout, KeepAlive: 30 * time.Second}).DialContext
		t.TLSHandshakeTimeout = connectTimeout
		c.transport, c.connectTimeout = t, connectTimeout
	}
	return &http.Client{Transport: c.transport, CheckRedirect: noRedirects}
}

func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// limits are the webFetch settings with defaults filled in.
type limits struct {
	connect time.Duration
	total   time.Duration
	// totalFrom names where total came from, for timeout errors; empty
	// means the webFetch.totalTimeoutMs setting.
	totalFrom string
	maxBytes  int64
}

func limitsOf(cfg func() *settings.Settings) limits {
	def := settings.Defaults().Web
	w := def
	if cfg != nil {
		if s := cfg(); s != nil {
			w = s.Web
		}
	}
	if w.ConnectTimeoutMs <= 0 {
		w.ConnectTimeoutMs = def.ConnectTimeoutMs
	}
	if w.TotalTimeoutMs <= 0 {
		w.TotalTimeoutMs = def.TotalTimeoutMs
	}
	if w.MaxBytes <= 0 {
		w.MaxBytes = def.MaxBytes
	}
	return limits{
		connect:  time.Duration(w.ConnectTimeoutMs) * time.Millisecond,
		total:    time.Duration(w.TotalTimeoutMs) * time.Millisecond,
		maxBytes: w.MaxBytes,
	}
}

func currentSettings(cfg func() *settings.Settings) *settings.Settings {
	if cfg != nil {
		if s := cfg(); s != nil {
			return s
		}
	}
	return settings.Defaults()
}
