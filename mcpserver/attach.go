package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/discovery"
	"github.com/toolhost/toolhost/internal/version"
)

// ClientMetaKey is the _meta key of a forwarded tools/call that names the
// agent which made it; the editor session's prompts show that name.
const ClientMetaKey = "toolhost/client"

// AttachClientName is how `toolhost mcp --attach` names itself to the
// editor session (toolhost/status lists the agents that connected).
const AttachClientName = "toolhost mcp --attach"

// AttachOptions configure Attach.
type AttachOptions struct {
	// Session is the editor session to reach.
	Session discovery.Info
	// Log receives the proxy's logs; nil discards them.
	Log *slog.Logger
	// MaxMessageBytes caps one input message, as for Serve.
	MaxMessageBytes int
	// HTTPClient is the base client of the connection to the session;
	// nil means http.DefaultClient's transport.
	HTTPClient *http.Client
	// DeferListing lists deferred tools by name to the client even when
	// it does not ask (toolhost mcp --attach --deferred). Which tools
	// defer is the editor session's setting.
	DeferListing bool
}

// ErrSessionEnded is returned by Attach when the editor session went away
// while the client was served.
var ErrSessionEnded = errors.New("the editor session ended")

// Attach serves a stdio MCP client (in/out) with the tools of a running
// editor session, reached over its loopback MCP endpoint: each tools/call
// is forwarded, with the client's progress token and cancellation, and
// runs in the editor (its documents, edits and dialogs). The tools follow
// the session's (list_changed). It returns when the client disconnects,
// ctx ends, or the session ends (ErrSessionEnded). A session that cannot
// be reached is an error before anything is served.
func Attach(ctx context.Context, in io.Reader, out io.Writer, opts AttachOptions) error {
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &proxy{log: log, progress: map[any]progressTarget{}}
	base := http.DefaultTransport
	if opts.HTTPClient != nil && opts.HTTPClient.Transport != nil {
		base = opts.HTTPClient.Transport
	}
	client := sdk.NewClient(&sdk.Implementation{Name: AttachClientName, Version: version.String()}, &sdk.ClientOptions{
		ToolListChangedHandler: func(ctx context.Context, _ *sdk.ToolListChangedRequest) {
			if err := p.syncTools(ctx); err != nil {
				log.Warn("the session's tools could not be listed again", "err", err)
			}
		},
		ProgressNotificationHandler: p.forwardProgress,
	})
	transport := &sdk.StreamableClientTransport{
		Endpoint:   opts.Session.URL,
		HTTPClient: &http.Client{Transport: bearer{token: opts.Session.Token, base: base}},
		MaxRetries: 2,
	}
	upstream, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return fmt.Errorf("connecting to the editor session at %s: %w", opts.Session.URL, err)
	}
	defer upstream.Close()
	p.upstream = upstream
	instructions := ""
	if r := upstream.InitializeResult(); r != nil {
		instructions = r.Instructions
	}
	server := sdk.NewServer(&sdk.Implementation{Name: "toolhost", Version: version.String()}, &sdk.ServerOptions{
		Logger:                    log,
		Instructions:              instructions,
		SupportedProtocolVersions: handshakeVersions(),
		Capabilities:              &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{ListChanged: true}},
	})
	server.AddReceivingMiddleware(encodeResults, deferListing(opts.DeferListing))
	p.mu.Lock()
	p.server = server
	p.mu.Unlock()
	if err := p.syncTools(ctx); err != nil {
		return fmt.Errorf("listing the editor session's tools: %w", err)
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		_ = upstream.Wait()
		cancel()
	}()
	t := newStdio(in, out, opts.MaxMessageBytes, log)
	defer t.stop()
	err = runSession(ctx, server, t)
	select {
	case <-ended:
		return ErrSessionEnded
	default:
	}
	return err
}

// proxy forwards one stdio client's calls to the editor session.
type proxy struct {
	log      *slog.Logger
	upstream *sdk.ClientSession

	// mu guards server, served and progress.
	mu sync.Mutex
	// served are the names of the tools offered to the client.
	served map[string]bool
	// progress maps the progress token sent to the session to the
	// client and token of the call, for the session's notifications.
	progress map[any]progressTarget
	// server serves the client; set once the session's handshake is done.
	server *sdk.Server
}

// syncTools offers the client the session's tools as they are now.
func (p *proxy) syncTools(ctx context.Context) error {
	p.mu.Lock()
	server := p.server
	p.mu.Unlock()
	if server == nil {
		return nil // the first sync follows the handshake
	}
	want := map[string]*sdk.Tool{}
	for t, err := range p.upstream.Tools(ctx, nil) {
		if err != nil {
			return err
		}
		want[t.Name] = t
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var gone []string
	for name := range p.served {
		if want[name] == nil {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		server.RemoveTools(gone...)
	}
	p.served = map[string]bool{}
	for name, t := range want {
		server.AddTool(t, p.forward(name))
		p.served[name] = true
	}
	return nil
}

// forward is the handler of one tool: the call goes to the session with
// the client's name, its progress token and its context (a cancelled call
// is cancelled in the session).
func (p *proxy) forward(name string) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		params := &sdk.CallToolParams{Name: name, Arguments: req.Params.Arguments, Meta: sdk.Meta{}}
		if ip := req.Session.InitializeParams(); ip != nil && ip.ClientInfo != nil {
			agent := ip.ClientInfo.Title
			if agent == "" {
				agent = ip.ClientInfo.Name
			}
			if agent != "" {
				params.Meta[ClientMetaKey] = agent
			}
		}
		if tok := req.Params.GetProgressToken(); tok != nil {
			// The session's notifications carry the token sent to it;
			// the client's own goes back to the client.
			up, ok := upstreamToken(tok)
			if ok {
				params.SetProgressToken(up)
				key := progressKey(up)
				p.mu.Lock()
				p.progress[key] = progressTarget{session: req.Session, token: tok}
				p.mu.Unlock()
				defer func() {
					p.mu.Lock()
					delete(p.progress, key)
					p.mu.Unlock()
				}()
			}
		}
		return p.upstream.CallTool(ctx, params)
	}
}

// progressTarget is the client and token of a forwarded call's progress.
type progressTarget struct {
	session *sdk.ServerSession
	token   any
}

// upstreamToken is the token sent to the session for a client's token: a
// JSON number arrives as float64, and the SDK sends only int or string
// tokens. A fractional number is sent as its text; other kinds are not
// forwarded.
func upstreamToken(tok any) (any, bool) {
	switch v := tok.(type) {
	case string, int, int64:
		return v, true
	case float64:
		if v == float64(int(v)) {
			return int(v), true
		}
		return fmt.Sprint(v), true
	}
	return nil, false
}

// forwardProgress passes a progress notification of the session on to the
// client whose call it belongs to, with the client's own token.
func (p *proxy) forwardProgress(ctx context.Context, req *sdk.ProgressNotificationClientRequest) {
	p.mu.Lock()
	target, ok := p.progress[progressKey(req.Params.ProgressToken)]
	p.mu.Unlock()
	if !ok {
		return
	}
	params := *req.Params
	params.ProgressToken = target.token
	if err := target.session.NotifyProgress(ctx, &params); err != nil {
		p.log.Debug("progress not passed on", "err", err)
	}
}

// progressKey makes a token comparable however it was decoded (numbers
// decode as float64).
func progressKey(tok any) any {
	switch v := tok.(type) {
	case int:
		return float64(v)
	case int64:
		return float64(v)
	}
	return tok
}

// bearer adds the session's token to every request.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}
