package web

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
)

//go:embed webfetch.md
var webFetchDescription string

// defaultPageChars is how many characters of page text one result holds.
const defaultPageChars = 50_000

var webFetchSchema = tools.SchemaOf[webFetchParams](nil)

type webFetchParams struct {
	URL    string   `json:"url" jsonschema:"The full URL of the page to read." schema:"format=uri"`
	Prompt string   `json:"prompt" jsonschema:"What you want to know from the page."`
	Offset *float64 `json:"offset,omitempty" jsonschema:"Character offset in the page text to read from; use the value a previous result gave to read a long page further." schema:"type=integer,minimum=0,maximum=9007199254740991"`
}

// WebFetchOutput is the structured result: Claude Code's fields, then
// toolhost's paging details.
type WebFetchOutput struct {
	Bytes      int    `json:"bytes"`
	Code       int    `json:"code"`
	CodeText   string `json:"codeText"`
	Result     string `json:"result"`
	DurationMs int64  `json:"durationMs"`
	URL        string `json:"url"`

	// RedirectURL is set when the URL redirects to another host.
	RedirectURL string `json:"redirectUrl,omitempty"`
	Offset      int    `json:"offset"`
	// NextOffset is where the next page of text starts; absent at the end.
	NextOffset *int `json:"nextOffset,omitempty"`
	TotalChars int  `json:"totalChars"`
	// Truncated: the body was larger than webFetch.maxBytes.
	Truncated bool `json:"truncated,omitempty"`
	// TextCut is set when the page's converted text was cut at its cap.
	TextCut    bool `json:"textCut,omitempty"`
	Cached     bool `json:"cached,omitempty"`
	Summarised bool `json:"summarised,omitempty"`
}

// WebFetch reads a web page as Markdown and answers a prompt about it.
type WebFetch struct {
	cfg     func() *settings.Settings
	opts    options
	clients *clients
	cache   *pageCache
}

// NewWebFetch returns the WebFetch tool reading its limits from cfg on every
// call (nil means the defaults).
func NewWebFetch(cfg func() *settings.Settings, opts ...Option) *WebFetch {
	o := buildOptions(opts)
	return &WebFetch{cfg: cfg, opts: o, clients: &clients{injected: o.client}, cache: newPageCache(o.now)}
}

func (*WebFetch) Name() string                 { return "WebFetch" }
func (*WebFetch) Description() string          { return webFetchDescription }
func (*WebFetch) InputSchema() json.RawMessage { return webFetchSchema.JSON() }
func (*WebFetch) SideEffect() tools.SideEffect { return tools.SideEffectNetwork }

// Docs implements tools.Documented.
func (*WebFetch) Docs() tools.Docs {
	return tools.Docs{
		Short: "Read a web page as Markdown and answer a prompt about it.",
		Long: "GET with a connect timeout (webFetch.connectTimeoutMs, default 10 s), a total timeout " +
			"(webFetch.totalTimeoutMs, default 60 s) and a size cap (webFetch.maxBytes, default 10 MiB; " +
			"a larger page is cut and the result says so). http is upgraded to https, except for loopback " +
			"hosts (localhost, 127.0.0.0/8, ::1) so local servers can be read. Redirects on the same host " +
			"are followed (at most 10, loops reported); a redirect to another host is reported with its " +
			"target instead, so the next fetch goes through the permission rules for that host. HTML becomes " +
			"Markdown with absolute links (table cells unpadded; a page over 256 KiB is converted in " +
			"segments cut between blocks, a table split between them repeating its header row; the Markdown " +
			"of one page stops at 10 MiB and the result says it was cut); other text (plain, JSON, XML, ...) " +
			"is returned as is; binary " +
			"content is refused. Pages are cached by URL for 15 minutes. Results hold 50,000 characters " +
			"of text; `offset` (in characters, as Claude Code's input defines it) reads further. When agent.endpoint " +
			"names an OpenAI-compatible chat-completions URL (with agent.model, and agent.apiKeyEnv naming the " +
			"variable that holds the key), the text and the prompt go to that model and its answer is " +
			"returned; otherwise the text itself is returned and the result says no summariser is configured.",
		Examples: []tools.Example{
			{Title: "Read documentation", Input: json.RawMessage(`{"url":"https://go.dev/doc/effective_go","prompt":"How should errors be named?"}`)},
			{Title: "Read on through a long page", Input: json.RawMessage(`{"url":"https://go.dev/ref/spec","prompt":"What does the spec say about labels?","offset":50000}`)},
		},
	}
}

// Access implements tools.AccessDescriber: the host the call reaches.
func (*WebFetch) Access(input json.RawMessage) tools.Access {
	var p webFetchParams
	if json.Unmarshal(input, &p) != nil {
		return tools.Access{}
	}
	return domainAccess(p.URL)
}

// Preview implements tools.Previewer: the URL that will be fetched (after
// the https upgrade).
func (*WebFetch) Preview(_ context.Context, input json.RawMessage) *tools.Preview {
	var p webFetchParams
	if json.Unmarshal(input, &p) != nil {
		return nil
	}
	u, err := normaliseURL(p.URL)
	if err != nil {
		return nil
	}
	return &tools.Preview{Kind: "url", Text: u.String()}
}

// Execute fetches (or takes from the cache) the page and answers.
func (t *WebFetch) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	start := time.Now()
	var p webFetchParams
	if err := json.Unmarshal(call.Input, &p); err != nil {
		return tools.ErrorResult("the input is not a valid WebFetch input (%v); send {\"url\": \"https://...\", \"prompt\": \"...\"}.", err), nil
	}
	offset := 0
	if p.Offset != nil {
		if *p.Offset < 0 || *p.Offset != float64(int(*p.Offset)) {
			return tools.ErrorResult("offset must be a whole number of characters, 0 or more; got %v.", *p.Offset), nil
		}
		offset = int(*p.Offset)
	}
	u, err := normaliseURL(p.URL)
	if err != nil {
		return fetchErrorResult(err)
	}
	lim := limitsOf(t.cfg)
	key := u.String()
	pg, cached := t.cache.get(key)
	if !cached {
		var redirect *offHostRedirect
		pg, redirect, err = t.load(ctx, u, lim)
		if err != nil {
			return fetchErrorResult(err)
		}
		if redirect != nil {
			return redirectResult(redirect, p.Prompt, start), nil
		}
		if pg.status/100 != 2 {
			return statusErrorResult(pg), nil
		}
		t.cache.put(key, pg)
	}

	total := utf8.RuneCountInString(pg.text)
	if offset > 0 && offset >= total {
		return tools.ErrorResult("offset %d is past the end of the page text, which has %d characters; use an offset below %d, or 0 for the start.", offset, total, total), nil
	}
	part, end := runeWindow(pg.text, offset, t.opts.pageChars)
	out := WebFetchOutput{
		Bytes: pg.bytes, Code: pg.status, CodeText: http.StatusText(pg.status), URL: pg.url,
		Offset: offset, TotalChars: total, Truncated: pg.truncated, TextCut: pg.textCut, Cached: cached,
	}
	if end < total {
		next := end
		out.NextOffset = &next
	}

	var text string
	agent := currentSettings(t.cfg).Agent
	summaryNote := "No summariser is configured (the agent.endpoint setting), so the page text follows; answer the prompt from it yourself."
	if agent.Endpoint != "" {
		answer, err := summarise(ctx, t.clients.get(lim.connect), agent, p.Prompt, pg.url, part)
		if err == nil {
			out.Summarised = true
			text = answer + "\n\n---\n" + pageFooter(pg, out, true)
		} else {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			summaryNote = fmt.Sprintf("The summariser (agent.endpoint) failed: %v. The page text follows instead; answer the prompt from it yourself.", err)
		}
	}
	if !out.Summarised {
		text = pageHeader(pg, out) + summaryNote + "\n\n" + part
		if footer := pageFooter(pg, out, false); footer != "" {
			text += "\n\n---\n" + footer
		}
	}
	out.Result = text
	out.DurationMs = time.Since(start).Milliseconds()
	res := tools.TextResult(text)
	res.Structured = out
	return res, nil
}

// load fetches a page and converts its body to text.
func (t *WebFetch) load(ctx context.Context, u *url.URL, lim limits) (*page, *offHostRedirect, error) {
	resp, redirect, err := get(ctx, t.clients.get(lim.connect), u, lim)
	if err != nil || redirect != nil {
		return nil, redirect, err
	}
	pg := &page{
		url: resp.url.String(), status: resp.status, statusText: http.StatusText(resp.status),
		bytes: len(resp.body), truncated: resp.truncated,
	}
	kind, mediaType := classify(resp.contentType, resp.body)
	pg.mediaType = mediaType
	switch kind {
	case kindBinary:
		if resp.status/100 != 2 {
			return pg, nil, nil // the status says enough
		}
		return nil, nil, failf("%s is %s, which WebFetch cannot read as text (it reads HTML and text: plain, Markdown, JSON, XML...). Images, PDFs and archives are not supported; download such files with Bash (curl -o) if you need them.",
			pg.url, mediaType)
	case kindHTML:
		pg.text, pg.title, pg.textCut = convertHTML(decodeText(resp.body, resp.contentType), pg.url, segmentBytes, t.opts.maxText)
	default:
		pg.text = decodeText(resp.body, resp.contentType)
	}
	return pg, nil, nil
}

func pageHeader(pg *page, out WebFetchOutput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "URL: %s\n", pg.url)
	if pg.title != "" {
		fmt.Fprintf(&b, "Title: %s\n", pg.title)
	}
	fmt.Fprintf(&b, "Status: %d %s, %s, %d bytes", pg.status, pg.statusText, pg.mediaType, pg.bytes)
	if out.Cached {
		b.WriteString(" (from the 15-minute cache)")
	}
	b.WriteString("\n")
	if span := charSpan(out); span != "" {
		fmt.Fprintf(&b, "Characters %s.\n", span)
	}
	return b.String()
}

// pageFooter says what is missing from this result and how to get it.
func pageFooter(pg *page, out WebFetchOutput, summarised bool) string {
	var notes []string
	if summarised {
		span := charSpan(out)
		if span != "" {
			span = ", characters " + span
		}
		notes = append(notes, fmt.Sprintf("Answered from %s (%d %s%s).", pg.url, pg.status, pg.statusText, span))
	}
	if out.NextOffset != nil {
		notes = append(notes, fmt.Sprintf("The page text continues: call WebFetch again with the same url and offset %d to read the next part.", *out.NextOffset))
	}
	if pg.truncated {
		notes = append(notes, fmt.Sprintf("The page is larger than the webFetch.maxBytes setting (%d bytes); only its beginning was read.", pg.bytes))
	}
	if pg.textCut {
		notes = append(notes, fmt.Sprintf("The page's text was cut at %d characters: its conversion stops there, so the rest of the page is not here. Download the page with Bash (curl -o) and search it there if you need the rest.", utf8.RuneCountInString(pg.text)))
	}
	return strings.Join(notes, "\n")
}

// charSpan is "from-to of total" when the result holds only part of the
// page text, else "".
func charSpan(out WebFetchOutput) string {
	if out.NextOffset == nil && out.Offset == 0 {
		return ""
	}
	end := out.TotalChars
	if out.NextOffset != nil {
		end = *out.NextOffset
	}
	return fmt.Sprintf("%d-%d of %d", out.Offset, end, out.TotalChars)
}

func redirectResult(r *offHostRedirect, prompt string, start time.Time) *tools.Result {
	text := fmt.Sprintf("%s redirects (%d %s) to another host: %s\n"+
		"The redirect was not followed. To read the page, call WebFetch again with url %q and the prompt %q.",
		r.from, r.status, http.StatusText(r.status), r.to, r.to, prompt)
	res := tools.TextResult(text)
	res.Structured = WebFetchOutput{
		Code: r.status, CodeText: http.StatusText(r.status), Result: text, URL: r.from,
		RedirectURL: r.to, DurationMs: time.Since(start).Milliseconds(),
	}
	return res
}

func statusErrorResult(pg *page) *tools.Result {
	detail := strings.Join(strings.Fields(pg.text), " ")
	if utf8.RuneCountInString(detail) > 500 {
		detail = string([]rune(detail)[:500]) + "…"
	}
	advice := "Check the URL."
	switch {
	case pg.status == http.StatusUnauthorized || pg.status == http.StatusForbidden:
		advice = "The page needs a login or refuses automated readers; look for another source."
	case pg.status == http.StatusTooManyRequests:
		advice = "The site is rate-limiting; try again later."
	case pg.status >= 500:
		advice = "The server failed; try again later or use another source."
	}
	msg := fmt.Sprintf("%s answered %d %s. %s", pg.url, pg.status, pg.statusText, advice)
	if detail != "" {
		msg += " The page said: " + detail
	}
	return tools.ErrorResult("%s", msg)
}

func fetchErrorResult(err error) (*tools.Result, error) {
	var fe *fetchError
	if errors.As(err, &fe) {
		return tools.ErrorResult("%s", fe.msg), nil
	}
	return nil, err
}
