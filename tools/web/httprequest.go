package web

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
)

//go:embed httprequest.md
var httpRequestDescription string

// Limits of HTTPRequest.
const (
	// maxResponseChars caps the body text a result holds.
	maxResponseChars = 100_000
	// maxRequestBody caps the body the model may send.
	maxRequestBody = 10 << 20
	maxTimeoutMs   = 600_000
)

var httpRequestSchema = tools.SchemaOf[httpRequestParams](nil)

type httpRequestParams struct {
	URL     string            `json:"url" jsonschema:"The full URL, e.g. https://api.example.com/v1/items?limit=10."`
	Method  string            `json:"method,omitempty" jsonschema:"The HTTP method (default GET)." schema:"enum=GET|POST|PUT|PATCH|DELETE"`
	Headers map[string]string `json:"headers,omitempty" jsonschema:"Request headers, e.g. {\"Accept\": \"application/json\"}. Nothing else is added: no cookies or credentials."`
	Body    *string           `json:"body,omitempty" jsonschema:"The request body, sent as given (for POST, PUT, PATCH)."`
	Timeout float64           `json:"timeout,omitempty" jsonschema:"Timeout in milliseconds (default 60000)." schema:"minimum=1,maximum=600000"`
}

// shownHeaders are the response headers a result lists: what an API client
// acts on. Set-Cookie is left out on purpose (session secrets).
var shownHeaders = []string{
	"Content-Type", "Content-Length", "Location", "Retry-After", "ETag", "Last-Modified",
	"Cache-Control", "Link", "WWW-Authenticate", "Allow",
}

// forbiddenHeader reports whether the HTTP client manages a header;
// setting it by hand breaks the request.
func forbiddenHeader(k string) bool {
	switch k {
	case "Host", "Content-Length", "Transfer-Encoding", "Connection", "Upgrade", "Te",
		"Trailer", "Keep-Alive":
		return true
	}
	return false
}

// HTTPOutput is the structured result of HTTPRequest.
type HTTPOutput struct {
	URL     string            `json:"url"`
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
	Bytes   int               `json:"bytes"`
	// Truncated: the body was longer than the result holds.
	Truncated  bool  `json:"truncated,omitempty"`
	DurationMs int64 `json:"durationMs"`
}

// HTTPRequest sends one request to an HTTP API with WebFetch's safety: the
// network side effect and per-domain rules, nothing added unasked,
// redirects to another host reported, bodies capped, binary refused.
type HTTPRequest struct {
	cfg     func() *settings.Settings
	clients *clients
}

// NewHTTPRequest returns HTTPRequest reading its limits (webFetch.*) from
// cfg on every call.
func NewHTTPRequest(cfg func() *settings.Settings, opts ...Option) *HTTPRequest {
	o := buildOptions(opts)
	return &HTTPRequest{cfg: cfg, clients: &clients{injected: o.client}}
}

func (*HTTPRequest) Name() string                 { return "HTTPRequest" }
func (*HTTPRequest) Description() string          { return httpRequestDescription }
func (*HTTPRequest) InputSchema() json.RawMessage { return httpRequestSchema.JSON() }
func (*HTTPRequest) SideEffect() tools.SideEffect { return tools.SideEffectNetwork }

// Docs implements tools.Documented.
func (*HTTPRequest) Docs() tools.Docs {
	return tools.Docs{
		Short: "One HTTP API request (GET, POST, PUT, PATCH, DELETE): status, headers, body.",
		Long: "Asks like WebFetch unless a rule allows the host: `HTTPRequest(domain:api.example.com)` " +
			"(`domain:*.example.com` for subdomains). Nothing is added to the request unasked (no cookies, " +
			"no credentials, no keys from the environment); http is upgraded to https except for loopback " +
			"hosts; redirects on the same host are followed (303 turns into GET), redirects to another " +
			"host are reported, not followed. Text bodies up to 100,000 characters, JSON pretty-printed; " +
			"binary bodies refused. Limits come from webFetch.connectTimeoutMs, webFetch.totalTimeoutMs " +
			"and webFetch.maxBytes.",
		Examples: []tools.Example{
			{Title: "Read a JSON API", Input: json.RawMessage(`{"url":"https://api.github.com/repos/golang/go","headers":{"Accept":"application/vnd.github+json"}}`)},
			{Title: "Create an item on a local server", Input: json.RawMessage(`{"url":"http://localhost:8080/items","method":"POST","body":"{\"name\":\"x\"}"}`)},
		},
	}
}

// Access implements tools.AccessDescriber: the host the call reaches.
func (*HTTPRequest) Access(input json.RawMessage) tools.Access {
	var p httpRequestParams
	if json.Unmarshal(input, &p) != nil {
		return tools.Access{}
	}
	return domainAccess(p.URL)
}

// Risk implements tools.RiskAssessor: reading is high (it reaches the
// network); a method that changes something is critical.
func (*HTTPRequest) Risk(input json.RawMessage) tools.Risk {
	var p httpRequestParams
	if json.Unmarshal(input, &p) != nil || p.Method == "" || p.Method == http.MethodGet {
		return tools.RiskHigh
	}
	return tools.RiskCritical
}

// Preview implements tools.Previewer: the method, URL and the start of the
// body.
func (*HTTPRequest) Preview(_ context.Context, input json.RawMessage) *tools.Preview {
	var p httpRequestParams
	if json.Unmarshal(input, &p) != nil {
		return nil
	}
	u, err := normaliseURL(p.URL)
	if err != nil {
		return nil
	}
	text := methodOf(p) + " " + u.String()
	if p.Body != nil && *p.Body != "" {
		b, cut := *p.Body, ""
		if len(b) > 500 {
			b, cut = strings.ToValidUTF8(b[:500], ""), "\n…"
		}
		text += "\n\n" + b + cut
	}
	return &tools.Preview{Kind: "url", Text: text}
}

func methodOf(p httpRequestParams) string {
	if p.Method == "" {
		return http.MethodGet
	}
	return p.Method
}

// Execute sends the request.
func (t *HTTPRequest) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var p httpRequestParams
	if err := json.Unmarshal(call.Input, &p); err != nil {
		return tools.ErrorResult("the input is not a valid HTTPRequest input (%v); send {\"url\": \"https://...\"}.", err), nil
	}
	if s := strings.ToLower(strings.TrimSpace(p.URL)); !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") {
		return tools.ErrorResult("%q is not an http(s) URL; give a full URL such as https://api.example.com/v1/items.", p.URL), nil
	}
	u, err := normaliseURL(p.URL)
	if err != nil {
		return fetchErrorResult(err)
	}
	method := methodOf(p)
	var body []byte
	if p.Body != nil {
		if len(*p.Body) > maxRequestBody {
			return tools.ErrorResult("the body is %d bytes; HTTPRequest sends at most %d.", len(*p.Body), maxRequestBody), nil
		}
		body = []byte(*p.Body)
	}
	header := http.Header{}
	for k, v := range p.Headers {
		ck := http.CanonicalHeaderKey(strings.TrimSpace(k))
		if forbiddenHeader(ck) {
			return tools.ErrorResult("the header %s is set by the HTTP client itself; leave it out.", ck), nil
		}
		if strings.ContainsAny(k+v, "\r\n") {
			return tools.ErrorResult("the header %s holds a line break, which HTTP does not allow.", ck), nil
		}
		header.Set(ck, v)
	}
	if header.Get("User-Agent") == "" {
		header.Set("User-Agent", userAgent)
	}
	if len(body) > 0 && header.Get("Content-Type") == "" {
		if trimmed := bytes.TrimSpace(body); len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') && json.Valid(trimmed) {
			header.Set("Content-Type", "application/json")
		}
	}
	lim := limitsOf(t.cfg)
	if p.Timeout > 0 {
		lim.total = time.Duration(min(p.Timeout, maxTimeoutMs)) * time.Millisecond
		lim.totalFrom = "the timeout of the call"
	}
	if call.Progress != nil {
		call.Progress.Report(method + " " + u.String())
	}
	start := time.Now()
	resp, off, err := send(ctx, t.clients.get(lim.connect), method, u, header, body, lim)
	if err != nil {
		return fetchErrorResult(err)
	}
	if off != nil {
		return tools.TextResult(fmt.Sprintf("%s answered %d and redirects to another host: %s\nThe redirect was not followed. If the new address is right, call HTTPRequest again with that URL.",
			off.from, off.status, off.to)), nil
	}
	return httpResult(resp, time.Since(start)), nil
}

// sentResponse is a response as HTTPRequest reports it.
type sentResponse struct {
	response
	statusText string
	header     http.Header
}

// send makes the request, following redirects on the same host: 307 and
// 308 repeat the method and body, 301, 302 and 303 turn a non-GET request
// into a GET without body (as browsers and curl -L do).
func send(ctx context.Context, client *http.Client, method string, u *url.URL, header http.Header, body []byte, lim limits) (*sentResponse, *offHostRedirect, error) {
	callCtx := ctx
	ctx, cancel := context.WithTimeout(ctx, lim.total)
	defer cancel()
	current := u
	seen := map[string]bool{u.String(): true}
	for {
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(body)
		}
		req, err := http.NewRequestWithContext(ctx, method, current.String(), rd)
		if err != nil {
			return nil, nil, failf("cannot request %s: %v", current, err)
		}
		req.Header = header.Clone()
		resp, err := client.Do(req)
		if err != nil {
			return nil, nil, describeFailure(callCtx, ctx, current, err, lim)
		}
		if isRedirect(resp.StatusCode) {
			next, off, err := nextHop(current, resp)
			if next == nil {
				return nil, off, err
			}
			if seen[next.String()] || len(seen) > maxRedirects {
				return nil, nil, failf("%s redirects in a loop or too often (last to %s); stopped. Check the URL.", u, next)
			}
			seen[next.String()] = true
			if resp.StatusCode != http.StatusTemporaryRedirect && resp.StatusCode != http.StatusPermanentRedirect && method != http.MethodGet {
				method, body = http.MethodGet, nil
				header = header.Clone()
				header.Del("Content-Type")
			}
			current = next
			continue
		}
		r, err := readCapped(callCtx, ctx, current, resp, lim)
		if err != nil {
			return nil, nil, err
		}
		return &sentResponse{
			response:   *r,
			statusText: resp.Status,
			header:     resp.Header,
		}, nil, nil
	}
}

// httpResult formats a response: status line, selected headers, body.
func httpResult(r *sentResponse, took time.Duration) *tools.Result {
	out := HTTPOutput{URL: r.url.String(), Status: r.status, Headers: map[string]string{}, Bytes: len(r.body), DurationMs: took.Milliseconds()}
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP %s (%s, %d bytes, %s)\n", r.statusText, out.URL, len(r.body), took.Round(time.Millisecond))
	var names []string
	for _, h := range shownHeaders {
		if v := r.header.Get(h); v != "" {
			out.Headers[h] = v
			names = append(names, h)
		}
	}
	// Rate-limit headers have many spellings; each is shown, sorted.
	var rate []string
	for k := range r.header {
		if strings.HasPrefix(k, "X-Ratelimit-") || strings.HasPrefix(k, "Ratelimit") {
			out.Headers[k] = r.header.Get(k)
			rate = append(rate, k)
		}
	}
	sort.Strings(rate)
	names = append(names, rate...)
	for _, h := range names {
		fmt.Fprintf(&b, "%s: %s\n", h, out.Headers[h])
	}
	b.WriteByte('\n')

	kind, media := classify(r.contentType, r.body)
	switch {
	case len(r.body) == 0:
		b.WriteString("(empty body)")
	case kind == kindBinary:
		fmt.Fprintf(&b, "(binary body of type %s, %d bytes, not shown: HTTPRequest returns text only; ask for a text format, e.g. with an Accept header)", media, len(r.body))
	default:
		text := decodeText(r.body, r.contentType)
		if media == "application/json" || strings.HasSuffix(media, "+json") {
			var pretty bytes.Buffer
			if json.Indent(&pretty, []byte(text), "", "  ") == nil {
				text = pretty.String()
			}
		}
		if utf8.RuneCountInString(text) > maxResponseChars {
			text, _ = runeWindow(text, 0, maxResponseChars)
			out.Truncated = true
		}
		out.Body = text
		b.WriteString(text)
		switch {
		case out.Truncated:
			fmt.Fprintf(&b, "\n(body cut at %d characters; ask the API for less, e.g. with paging parameters)", maxResponseChars)
		case r.truncated:
			b.WriteString("\n(body cut at the webFetch.maxBytes limit)")
			out.Truncated = true
		}
	}
	text := b.String()
	res := tools.TextResult(text)
	if r.status >= 400 {
		res = tools.ErrorResult("the server answered %s", text)
	}
	res.Structured = out
	return res
}
