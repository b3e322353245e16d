package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/toolhost/toolhost/tools"
)

// Limits of fetching.
const (
	maxRedirects = 10
	maxURLLength = 2000
)

// page is one fetched response, its body converted to text.
type page struct {
	// url is the address finally read, after same-host redirects.
	url        string
	status     int
	statusText string
	// mediaType is the Content-Type without parameters.
	mediaType string
	title     string
	text      string
	// bytes is how many body bytes were read.
	bytes int
	// truncated: the body was longer than webFetch.maxBytes.
	truncated bool
	// textCut: the converted text was cut at maxPageText.
	textCut bool
}

// offHostRedirect is a redirect to another host: reported, not followed, so
// that the permission rules see the new host when the model fetches it.
type offHostRedirect struct {
	from, to string
	status   int
}

// fetchError is a failure the model can act on (a bad URL, a dead host, a
// binary file). Anything else is an infrastructure failure.
type fetchError struct{ msg string }

func (e *fetchError) Error() string { return e.msg }

func failf(format string, args ...any) error {
	return &fetchError{msg: fmt.Sprintf(format, args...)}
}

// normaliseURL checks a URL from the model and upgrades http to https, except
// for loopback hosts (localhost, 127.0.0.0/8, ::1), where local test and
// development servers rarely speak TLS.
func normaliseURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, failf("url is empty; give a full URL such as https://example.com/page.")
	}
	if len(raw) > maxURLLength {
		return nil, failf("the URL is %d characters long; at most %d are accepted.", len(raw), maxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, failf("%q is not a valid URL (%v); give a full URL such as https://example.com/page.", raw, err)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, failf("%q is not an http(s) URL; WebFetch reads web pages only (use Read for local files).", raw)
	}
	if u.Hostname() == "" {
		return nil, failf("%q has no host; give a full URL such as https://example.com/page.", raw)
	}
	if u.User != nil {
		return nil, failf("%q carries a user name or password; WebFetch does not send credentials. Remove them from the URL.", raw)
	}
	upgrade(u)
	u.Fragment = ""
	return u, nil
}

// upgrade switches http to https unless the host is loopback.
func upgrade(u *url.URL) {
	if u.Scheme == "http" && !isLoopback(u.Hostname()) {
		u.Scheme = "https"
		if u.Port() == "80" {
			u.Host = u.Hostname()
		}
	}
}

func isLoopback(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// domainOf is the host a URL reaches, as permission rules name it.
func domainOf(u *url.URL) string {
	return strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
}

// sameHost reports whether a redirect from a to b stays on the same site:
// the same host name (ignoring a leading "www.") and port. A move from the
// default http port to the default https port counts as the same site.
func sameHost(a, b *url.URL) bool {
	ha := strings.TrimPrefix(domainOf(a), "www.")
	hb := strings.TrimPrefix(domainOf(b), "www.")
	if ha != hb {
		return false
	}
	if a.Port() == "" && b.Port() == "" {
		return true
	}
	return effectivePort(a) == effectivePort(b)
}

func effectivePort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "http" {
		return "80"
	}
	return "443"
}

func isRedirect(code int) bool {
	switch code {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// response is a raw response: status, headers and at most maxBytes of body.
type response struct {
	url         *url.URL
	status      int
	contentType string
	body        []byte
	truncated   bool
}

// get fetches u, following same-host redirects, within the limits. It
// returns the response, or the redirect to another host, or an error: a
// *fetchError for what the model can act on, ctx's error when the caller
// gave up.
func get(ctx context.Context, client *http.Client, u *url.URL, lim limits) (*response, *offHostRedirect, error) {
	callCtx := ctx
	ctx, cancel := context.WithTimeout(ctx, lim.total)
	defer cancel()

	current := u
	chain := []string{u.String()}
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, current.String(), nil)
		if err != nil {
			return nil, nil, failf("cannot request %s: %v", current, err)
		}
		req.Header.Set("User-Agent", userAgent)
		req.Header.Set("Accept", "text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.9,*/*;q=0.5")
		resp, err := client.Do(req)
		if err != nil {
			return nil, nil, describeFailure(callCtx, ctx, current, err, lim)
		}
		if isRedirect(resp.StatusCode) {
			next, off, err := nextHop(current, resp)
			if next == nil {
				return nil, off, err
			}
			for _, seen := range chain {
				if seen == next.String() {
					return nil, nil, failf("%s redirects in a loop (%s → %s); the page cannot be read. Check the URL, or try the site's canonical address.",
						u, strings.Join(chain, " → "), next)
				}
			}
			if len(chain) > maxRedirects {
				return nil, nil, failf("%s redirected more than %d times (%s → …); stopped there. Try the last address directly if it looks right.",
					u, maxRedirects, strings.Join(chain[:3], " → "))
			}
			chain = append(chain, next.String())
			current = next
			continue
		}
		r, err := readCapped(callCtx, ctx, current, resp, lim)
		return r, nil, err
	}
}

// isCompression reports whether a Content-Encoding compresses the body.
func isCompression(k string) bool {
	switch k {
	case "br", "zstd", "deflate", "gzip", "x-gzip", "compress", "x-compress", "lzma", "xz",
		"bzip2":
		return true
	}
	return false
}

// readCapped reads and closes a response's body, keeping at most
// lim.maxBytes of it.
func readCapped(callCtx, ctx context.Context, current *url.URL, resp *http.Response, lim limits) (*response, error) {
	// The transport asks for gzip and decodes it itself (removing the
	// header); a compression the server applies unasked (br, zstd,
	// deflate) would reach the model as binary noise labelled text. Other
	// values ("none", "utf-8": misconfigured servers) mean no encoding, as
	// browsers read them.
	if enc := strings.TrimSpace(resp.Header.Get("Content-Encoding")); isCompression(strings.ToLower(enc)) {
		resp.Body.Close()
		return nil, failf("%s was sent compressed as %q, which WebFetch did not ask for and cannot decode; the page cannot be read. Try another address for the same content.", current, enc)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, lim.maxBytes+1))
	resp.Body.Close()
	if err != nil {
		return nil, describeFailure(callCtx, ctx, current, err, lim)
	}
	truncated := int64(len(body)) > lim.maxBytes
	if truncated {
		body = body[:lim.maxBytes]
	}
	return &response{url: current, status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), body: body, truncated: truncated}, nil
}

// nextHop closes a redirect response and resolves it: the next address on
// the same host, or the redirect to another host (reported, not followed),
// or an error.
func nextHop(current *url.URL, resp *http.Response) (*url.URL, *offHostRedirect, error) {
	resp.Body.Close()
	next, err := redirectTarget(current, resp)
	if err != nil {
		return nil, nil, err
	}
	if !sameHost(current, next) {
		return nil, &offHostRedirect{from: current.String(), to: next.String(), status: resp.StatusCode}, nil
	}
	return next, nil, nil
}

// domainAccess is the Access of a call reaching the URL raw: its host, as
// domain rules name it; nothing for a URL that is not valid.
func domainAccess(raw string) tools.Access {
	u, err := normaliseURL(raw)
	if err != nil {
		return tools.Access{}
	}
	return tools.Access{Domain: domainOf(u)}
}

// redirectTarget resolves a redirect's Location against the current URL.
func redirectTarget(current *url.URL, resp *http.Response) (*url.URL, error) {
	loc := resp.Header.Get("Location")
	if loc == "" {
		return nil, failf("%s answered %s without saying where to go (no Location header).", current, resp.Status)
	}
	next, err := current.Parse(loc)
	if err != nil {
		return nil, failf("%s redirects to %q, which is not a valid URL.", current, loc)
	}
	next.Scheme = strings.ToLower(next.Scheme)
	if next.Scheme != "http" && next.Scheme != "https" {
		return nil, failf("%s redirects to %s, which is not a web page.", current, next)
	}
	// The transport would send a user name and password in the address as
	// credentials; WebFetch sends none, whoever names them (Claude Code
	// does not follow such a redirect either).
	if next.User != nil {
		next.User = nil
		return nil, failf("%s redirects to %s with a user name or password in the address; WebFetch does not send credentials, so the redirect was not followed.", current, next)
	}
	upgrade(next)
	next.Fragment = ""
	return next, nil
}

// describeFailure turns a transport error into what the model should know.
func describeFailure(callCtx, ctx context.Context, u *url.URL, err error, lim limits) error {
	if callCtx.Err() != nil {
		return callCtx.Err()
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		from := lim.totalFrom
		if from == "" {
			from = "the webFetch.totalTimeoutMs setting"
		}
		return failf("%s did not send the whole page within %s (%s); the server is slow or not answering. Try again later or another source.",
			u, lim.total.Round(time.Millisecond), from)
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		return failf("the host %s does not exist (DNS lookup failed); check the URL's spelling.", u.Hostname())
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return failf("could not connect to %s within %s (the webFetch.connectTimeoutMs setting); the host may be down or unreachable.",
			u.Host, lim.connect.Round(time.Millisecond))
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return failf("could not connect to %s: %v. The host may be down or refuse connections.", u.Host, opErr.Err)
	}
	return failf("fetching %s failed: %v", u, err)
}
