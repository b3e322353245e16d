// Package mcpserver serves a toolhost session as an MCP server (toolhost
// mcp): the session's tools are listed with annotations derived from their
// side effects, and every tools/call runs through the session's pipeline,
// so validation, permission rules and hooks apply as they do for editors.
// Permission prompts and questions reach the user through MCP elicitation
// when the client supports it; otherwise a call that needs a prompt is
// denied.
package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"

	"github.com/toolhost/toolhost/internal/background"
	"github.com/toolhost/toolhost/internal/version"
	"github.com/toolhost/toolhost/session"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/engine"
)

// Options configure Serve.
type Options struct {
	// Roots are the workspace folders of the session Serve builds; empty
	// means the process's working directory.
	Roots []string
	// Log receives the server's logs; nil discards them. Never log to the
	// output stream: it carries the protocol.
	Log *slog.Logger
	// MaxMessageBytes caps one input message; a longer one is answered
	// with an error and skipped. 0 means the server.maxMessageBytes
	// setting (64 MiB by default).
	MaxMessageBytes int
	// Instructions replace the server's instructions in the handshake.
	Instructions string
	// DeferListing lists deferred tools by name to every client, not only
	// to those that ask (toolhost mcp --deferred).
	DeferListing bool
}

// Config configures a Server beyond its registry and pipeline.
type Config struct {
	// Instructions are the server's instructions in the handshake; empty
	// means the default.
	Instructions string
	// CallHost returns the tools.Host of one call; own is the host the
	// server would use (elicitation, files on disk, MCP progress). Nil
	// means own. The editor session's endpoint runs calls in the editor.
	CallHost func(req *sdk.CallToolRequest, own tools.Host) tools.Host
	// Serves, when set, picks the registry's tools served (by name); nil
	// serves every enabled tool.
	Serves func(name string) bool
	// OnClient, when set, is told the name of each client that completed
	// the handshake.
	OnClient func(name string)
	// Deferred returns the tools.deferred setting, which marks the tools
	// a deferred listing names only; nil means the defaults.
	Deferred func() []string
	// DeferListing lists deferred tools by name to every client; without
	// it only a client that asks (DeferredCapability) gets that listing.
	DeferListing bool
	// Host, when set, returns the host whose client decides which tools
	// the server can serve (tools.Unservable): the editor's, for the
	// editor session's endpoint. Nil means the server's own host, which
	// has no editor, so the tools only an editor answers are not served.
	Host func() tools.Host
	// SyncLater leaves the first adding of the registry's tools to the
	// MCP server until Serve has written its first answer (the initialize
	// reply) or a tools/list or tools/call arrives; without it the tools
	// are added at once, in the background.
	SyncLater bool
}

// defaultInstructions are the instructions of `toolhost mcp`.
const defaultInstructions = "toolhost: Claude-Code-compatible coding tools (read, search, edit, run) over the working directory."

// noEditorInstructions tell the client of a server without an editor why
// the editor's language tools are missing and how to get them.
const noEditorInstructions = "This server runs with no editor: getDiagnostics and LSP, which an editor's language servers answer, are not offered; `toolhost mcp --attach` inside an editor session serves them."

// Serve builds a session over opts.Roots and serves it as an MCP server on
// in/out (newline-delimited JSON-RPC, MCP's stdio transport) until the
// client disconnects or ctx ends. The session is closed on return.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	roots := opts.Roots
	if len(roots) == 0 {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("no roots given and no working directory: %w", err)
		}
		roots = []string{wd}
	}
	instructions := opts.Instructions
	if instructions == "" {
		instructions = defaultInstructions
	}
	// The session (the settings, the tools, the pipeline) is built once
	// the initialize reply is written, or as soon as something needs it.
	// The reply needs none of it. Begun beside the handshake (when the
	// first line was read), the build delayed the reply by 0.2-0.25 ms on
	// two cores; begun when the client's second line arrived, it listed
	// the tools 0.15-0.2 ms later than begun at the reply (800 alternating
	// starts each). sess and buildErr are set once built is closed; what
	// needs the session waits for that: the first adding of the tools
	// (bind), the client's roots, the cap on lines after the first.
	var (
		sess     *session.Session
		buildErr error
	)
	built := make(chan struct{})
	srv := newServer(opts.Log, Config{Instructions: instructions + " " + noEditorInstructions,
		Deferred: func() []string { return sess.Settings.Current().Tools.Deferred }, DeferListing: opts.DeferListing, SyncLater: true})
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	build := func() {
		defer close(built)
		// A project MCP server's approval waits for the client.
		sess, buildErr = newSession(session.Options{Roots: roots, Log: opts.Log, ApproveMCPServer: srv.ApproveMCPServer})
		if buildErr != nil {
			cancel()
			return
		}
		srv.bind(sess.Registry, sess.Pipeline)
		// An untrusted folder that asks for something is asked about once
		// the client is there (when it can be asked).
		srv.bg.Go("asking whether the folder is trusted", func(ctx context.Context) { srv.AskTrust(ctx, sess) })
	}
	var buildOnce sync.Once
	startBuild := func() { buildOnce.Do(func() { go build() }) }
	// session.New always returns, and soon: waiting for it needs no
	// context.
	awaitSession := func() *session.Session {
		startBuild()
		<-built
		return sess
	}
	defer func() {
		awaitSession()
		srv.Close()
		if sess != nil {
			sess.Close()
		}
	}()
	srv.FollowClientRoots(func(paths []string) {
		if sess := awaitSession(); sess != nil {
			sess.Workspace.SetRoots(paths)
		}
	})
	// The client is served at once and the tools are added once the
	// initialize reply is out, after the session is built: the reply does
	// not need them, and adding them (the SDK checks every schema) would
	// otherwise compete with it for the CPU. tools/list and tools/call
	// wait for them (awaitTools, which also starts the adding should a
	// tool request come first), and adding them announces nothing
	// (quietFirstSync).
	t := newStdio(in, out, opts.MaxMessageBytes, srv.log)
	t.answered = func() {
		startBuild()
		srv.startFirstSync()
	}
	if opts.MaxMessageBytes <= 0 {
		// The first line, the initialize request, is read under the
		// default cap; the lines after it under the settings' cap.
		t.laterMax = func() int {
			if sess := awaitSession(); sess != nil {
				return int(sess.Settings.Current().Server.MaxMessageBytes)
			}
			return 0
		}
	}
	defer t.stop()
	err := srv.Run(ctx, t)
	if awaitSession() == nil {
		return buildErr
	}
	return err
}

// newSession builds Serve's session; tests hold it back.
var newSession = session.New

// Server is a tool registry served over MCP.
type Server struct {
	mcp *sdk.Server
	// reg and pipeline are set once, by bind, before bound is closed;
	// what reads them waits for bound (the first sync, and through it
	// every tool request).
	reg      *tools.Registry
	pipeline *engine.Pipeline
	bound    chan struct{}
	log      *slog.Logger
	callHost func(*sdk.CallToolRequest, tools.Host) tools.Host
	serves   func(string) bool
	deferred func() []string
	host     func() tools.Host

	// bg owns the goroutines the server starts (the first sync of the
	// tools, compiling schemas, fetching the client's roots); Close ends
	// and waits for them.
	bg *background.Group
	// ready is closed once the tools were first added to the MCP server,
	// which firstSync starts once.
	ready     chan struct{}
	firstSync sync.Once
	// syncs counts the first sync and the later ones that changed the MCP
	// server's tools.
	syncs atomic.Int64
	// client is the first client session, set once before clientReady is
	// closed; project MCP servers are approved through it.
	client      *sdk.ServerSession
	clientReady chan struct{}
	clientOnce  sync.Once
	// onRoots, when set, receives the client's roots as paths.
	onRoots atomic.Pointer[func([]string)]

	// calls ends when the context of Run ends (a SIGTERM, the end of the
	// editor session): the calls in flight are cancelled then, their
	// processes with them, instead of holding the stop up for the grace
	// period. A server is not run again after that.
	calls       context.Context
	cancelCalls context.CancelFunc

	mu sync.Mutex
	// served maps each MCP tool name to the registry name it serves.
	served map[string]string
	// schemas remembers what was served, to re-add only changed tools.
	schemas map[string]string
	// synced is set by the first sync.
	synced bool
	// syncedAt is the registry's generation the served tools were made
	// from; a tool request finding it behind syncs first (awaitTools).
	syncedAt atomic.Uint64
	// unlisten removes the server's registry listener (Close).
	unlisten func()
}

// New returns a server for reg whose calls run through pipeline. It follows
// the registry: tools added, removed, enabled or disabled later (MCP servers
// coming and going) are announced with notifications/tools/list_changed,
// from a listener the server adds to reg (Registry.OnChange) and removes
// on Close. A tools/list or tools/call answers from the registry as it is
// when the request arrives, even before that listener has run.
func New(reg *tools.Registry, pipeline *engine.Pipeline, log *slog.Logger) *Server {
	return NewServer(reg, pipeline, log, Config{})
}

// NewServer is New with a Config.
func NewServer(reg *tools.Registry, pipeline *engine.Pipeline, log *slog.Logger, cfg Config) *Server {
	s := newServer(log, cfg)
	s.bind(reg, pipeline)
	if !cfg.SyncLater {
		s.startFirstSync()
	}
	return s
}

// newServer is NewServer without its registry and pipeline, which bind
// gives it later; until then it answers the handshake, and tool requests
// wait.
func newServer(log *slog.Logger, cfg Config) *Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.Instructions == "" {
		cfg.Instructions = defaultInstructions
	}
	s := &Server{log: log.With("component", "mcpserver"), served: map[string]string{}, schemas: map[string]string{},
		bound: make(chan struct{}), clientReady: make(chan struct{}), callHost: cfg.CallHost, serves: cfg.Serves, deferred: cfg.Deferred, host: cfg.Host}
	s.bg = background.New(s.log)
	s.calls, s.cancelCalls = context.WithCancel(context.Background())
	s.mcp = sdk.NewServer(&sdk.Implementation{Name: "toolhost", Version: version.String()}, &sdk.ServerOptions{
		Logger:       s.log,
		Instructions: cfg.Instructions,
		// Protocol 2026-07-28 forbids server-initiated elicitation; prompts
		// and questions need it mid-call, so the server speaks the versions
		// before it (the Go and TypeScript clients negotiate down).
		SupportedProtocolVersions: handshakeVersions(),
		InitializedHandler: func(_ context.Context, req *sdk.InitializedRequest) {
			if cfg.OnClient != nil {
				name := ""
				if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil {
					name = p.ClientInfo.Name
				}
				cfg.OnClient(name)
			}
			s.clientOnce.Do(func() {
				s.client = req.Session
				close(s.clientReady)
			})
			s.bg.Go("fetching the client's roots", func(ctx context.Context) { s.fetchRoots(ctx, req.Session) })
		},
		//lint:ignore SA1019 roots are deprecated only from protocol 2026-07-28 on, which this server does not speak
		RootsListChangedHandler: func(_ context.Context, req *sdk.RootsListChangedRequest) {
			s.bg.Go("fetching the client's roots", func(ctx context.Context) { s.fetchRoots(ctx, req.Session) })
		},
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{ListChanged: true}},
	})
	// Adding tools to the SDK costs a few milliseconds (it re-parses every
	// schema); doing it in the background, or after the handshake
	// (SyncLater), keeps it off the start-up path. tools/list and
	// tools/call wait for it.
	s.ready = make(chan struct{})
	s.mcp.AddReceivingMiddleware(encodeResults, s.awaitTools, deferListing(cfg.DeferListing), s.answerWithheld)
	s.mcp.AddSendingMiddleware(s.quietFirstSync)
	return s
}

// bind gives the server the registry it serves and the pipeline its calls
// run through, and follows the registry from then on; once.
func (s *Server) bind(reg *tools.Registry, pipeline *engine.Pipeline) {
	s.reg, s.pipeline = reg, pipeline
	s.unlisten = reg.OnChange(s.sync)
	close(s.bound)
}

// startFirstSync adds the registry's tools to the MCP server in the
// background, once; ready is closed when they are in.
func (s *Server) startFirstSync() {
	s.firstSync.Do(func() {
		s.bg.Go("adding the tools", func(ctx context.Context) {
			select {
			case <-s.bound:
			case <-ctx.Done():
				return
			}
			s.sync()
			close(s.ready)
		})
	})
}

// awaitTools holds tool requests until the first sync of the tools is
// done, and syncs first when the registry changed since the last: the
// server's listener may not have run yet when a listener added before it
// has told someone of the change (the editor's toolhost/toolsChanged),
// who then lists or calls the new tool. Per request that costs one atomic
// load.
func (s *Server) awaitTools(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method == "tools/list" || method == "tools/call" {
			s.startFirstSync()
			select {
			case <-s.ready:
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-s.calls.Done():
				// The server is ending (its session could not be built,
				// or Run's context ended): the tools will not come.
				return nil, s.calls.Err()
			}
			if s.reg.Generation() != s.syncedAt.Load() {
				s.sync()
			}
		}
		return next(ctx, method, req)
	}
}

// quietFirstSync drops the tools/list_changed that the first adding of the
// tools sets off: it runs while the client's handshake is under way, and a
// client that has the tools listed after it has nothing to list again. A
// change after the first (an MCP server's tools coming or going) is
// announced, that notification covering the first when they come together.
func (s *Server) quietFirstSync(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method == "notifications/tools/list_changed" && s.syncs.Load() <= 1 {
			return nil, nil
		}
		return next(ctx, method, req)
	}
}

// handshakeVersions are the SDK's protocol versions that allow requests from
// the server to the client during a call.
func handshakeVersions() []string {
	var out []string
	for _, v := range sdk.SupportedProtocolVersions() {
		if v < "2026-07-28" {
			out = append(out, v)
		}
	}
	return out
}

// ApproveMCPServer asks the first client, once it completed the handshake,
// whether a server of the project's .mcp.json may start: an elicitation
// form like a permission prompt. A client without elicitation cannot be
// asked and the server stays unapproved.
func (s *Server) ApproveMCPServer(ctx context.Context, name, command string) bool {
	select {
	case <-s.clientReady:
	case <-ctx.Done():
		return false
	}
	ans, err := newHost(s.client, nil, s.log).RequestPermission(ctx, tools.PermissionRequest{
		ToolName: "mcp__" + name,
		Title:    fmt.Sprintf("Start the MCP server %q from this project's .mcp.json?", name),
		Input:    map[string]string{"server": name},
		Risk:     tools.RiskHigh,
		Preview:  tools.CommandPreview(command),
	})
	if err != nil {
		s.log.Info("project MCP server not approved", "server", name, "err", err)
		return false
	}
	return ans.Consented()
}

// FollowClientRoots makes the server ask a client that declares roots for
// them after the handshake and whenever they change, and pass the file
// roots, as paths, to set (the session's Workspace.SetRoots). Until the
// answer arrives the roots given at start stay in force.
func (s *Server) FollowClientRoots(set func(paths []string)) {
	s.onRoots.Store(&set)
}

// fetchRoots asks the client for its roots, if it declared the roots
// capability (MCP asks servers not to send roots/list to others); until
// an answer, or when the client has none, the roots stay as they are. It
// runs aside from the notification that triggered it: the answer arrives
// on the same stream. It gives up when ctx ends (the server closes).
func (s *Server) fetchRoots(ctx context.Context, ss *sdk.ServerSession) {
	set := s.onRoots.Load()
	if set == nil {
		return
	}
	//lint:ignore SA1019 roots are deprecated from 2026-07-28 on, which this server does not speak
	if p := ss.InitializeParams(); p == nil || p.Capabilities == nil || p.Capabilities.RootsV2 == nil {
		s.log.Debug("the client does not offer roots; keeping the workspace roots")
		return
	}
	ctx, cancel := context.WithTimeout(ctx, rootsTimeout)
	defer cancel()
	//lint:ignore SA1019 roots are deprecated from 2026-07-28 on, which this server does not speak
	res, err := ss.ListRoots(ctx, nil)
	if err != nil {
		s.log.Debug("the client did not list its roots", "err", err)
		return
	}
	var paths []string
	for _, r := range res.Roots {
		u, err := url.Parse(r.URI)
		if err != nil || u.Scheme != "file" || u.Path == "" {
			continue
		}
		paths = append(paths, filepath.FromSlash(u.Path))
	}
	if len(paths) > 0 {
		s.log.Info("using the client's roots", "roots", paths)
		(*set)(paths)
	}
}

// rootsTimeout bounds the wait for a client's roots.
const rootsTimeout = 10 * time.Second

// Close stops following the registry, ends the work the server started in
// the background and waits for it. Safe to call more than once.
func (s *Server) Close() {
	select {
	case <-s.bound:
		s.unlisten()
	default:
	}
	s.bg.Close()
}

// Run serves one client over t until it disconnects or ctx ends; when ctx
// ends, the calls in flight are cancelled.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error {
	defer context.AfterFunc(ctx, s.cancelCalls)()
	return runSession(ctx, s.mcp, t)
}

// runSession is the SDK's Server.Run, which logs a server ended by its
// context (a SIGTERM, the end of the editor session) as an error: here it
// is the normal way to stop.
func runSession(ctx context.Context, server *sdk.Server, t sdk.Transport) error {
	ss, err := server.Connect(ctx, t, nil)
	if err != nil {
		return err
	}
	closed := make(chan error, 1)
	go func() { closed <- ss.Wait() }()
	select {
	case <-ctx.Done():
		ss.Close()
		<-closed
		return ctx.Err()
	case err := <-closed:
		return err
	}
}

// Connect serves one client over t and returns its session at once (tests,
// and hosts that serve several clients).
func (s *Server) Connect(ctx context.Context, t sdk.Transport) (*sdk.ServerSession, error) {
	return s.mcp.Connect(ctx, t, nil)
}

// MCPName is a registry name made valid for MCP ([A-Za-z0-9_.-], at most
// 128 characters).
func MCPName(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	out := b.String()
	if len(out) > 128 {
		out = out[:128]
	}
	if out == "" {
		out = "_"
	}
	return out
}

// Handler serves the server over streamable HTTP, one MCP session per
// client.
func (s *Server) Handler() http.Handler {
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.mcp }, nil)
}

// sync makes the served tools match the registry's enabled tools.
func (s *Server) sync() {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Read before the entries: a change while they are read leaves the
	// sync behind, to be redone.
	generation := s.reg.Generation()
	defer s.syncedAt.Store(generation)
	// The first sync counts at once, a later one before its first change
	// reaches the SDK, which notifies the client of it a moment later
	// (quietFirstSync).
	counted := !s.synced
	if !s.synced {
		s.synced = true
		s.syncs.Add(1)
	}
	count := func() {
		if !counted {
			counted = true
			s.syncs.Add(1)
		}
	}
	want := map[string]bool{}
	var patterns []string
	if s.deferred != nil {
		patterns = s.deferred()
	}
	host := s.servingHost()
	for _, e := range s.reg.Entries(false) {
		t := e.Tool
		if s.serves != nil && !s.serves(t.Name()) {
			continue
		}
		if tools.Unservable(t, host) != "" {
			continue
		}
		name := MCPName(t.Name())
		if want[name] {
			continue // two registry names that sanitise alike: the first wins
		}
		want[name] = true
		schema := inputSchema(t)
		ann := tools.Annotations(t)
		meta := deferredMeta(t.Name(), patterns)
		key := t.Description() + "\x00" + string(schema) + "\x00" + fmt.Sprint(ann) + "\x00" + fmt.Sprint(meta)
		if s.schemas[name] == key {
			continue
		}
		s.schemas[name] = key
		s.served[name] = t.Name()
		count()
		s.mcp.AddTool(&sdk.Tool{
			Name:        name,
			Description: t.Description(),
			InputSchema: schema,
			Annotations: annotations(ann),
			Meta:        meta,
		}, s.handler(t.Name()))
	}
	var gone []string
	for name := range s.served {
		if !want[name] {
			gone = append(gone, name)
			delete(s.served, name)
			delete(s.schemas, name)
		}
	}
	if len(gone) > 0 {
		count()
		s.mcp.RemoveTools(gone...)
	}
}

// servingHost is the host whose client decides which tools the server can
// serve (Config.Host), else the server's own, which has no editor.
func (s *Server) servingHost() tools.Host {
	if s.host != nil {
		return s.host()
	}
	return newHost(nil, nil, s.log)
}

// answerWithheld answers a call of a registered tool the server does not
// serve because its host cannot (tools.Unservable) with the reason, as a
// tool error the model reads, where the SDK would answer "unknown tool".
// A served tool costs one map lookup here.
func (s *Server) answerWithheld(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method == "tools/call" {
			if p, ok := req.GetParams().(*sdk.CallToolParamsRaw); ok {
				if why := s.unserved(p.Name); why != "" {
					return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "Error: " + why}}}, nil
				}
			}
		}
		return next(ctx, method, req)
	}
}

// unserved is why the server does not serve the enabled registry tool
// name, whose host cannot; "" for a served tool or an unknown name.
func (s *Server) unserved(name string) string {
	s.mu.Lock()
	_, served := s.served[name]
	s.mu.Unlock()
	if served {
		return ""
	}
	e, ok := s.reg.Lookup(name)
	if !ok || !e.Enabled || (s.serves != nil && !s.serves(e.Tool.Name())) {
		return ""
	}
	return tools.Unservable(e.Tool, s.servingHost())
}

// inputSchema is the tool's schema, as an object schema (the SDK refuses
// anything else). Only its type is decoded (segmentio/encoding skips the
// rest, still checking it is JSON): decoding every schema whole cost a
// third of adding the tools at start.
func inputSchema(t tools.Tool) json.RawMessage {
	raw := t.InputSchema()
	var head struct {
		Type any `json:"type"`
	}
	if segjson.Unmarshal(raw, &head) != nil || head.Type != "object" {
		return json.RawMessage(`{"type":"object"}`)
	}
	return raw
}

// annotations converts toolhost's annotations to the SDK's.
func annotations(a tools.ToolAnnotations) *sdk.ToolAnnotations {
	destructive, openWorld := a.DestructiveHint, a.OpenWorldHint
	return &sdk.ToolAnnotations{
		Title:           a.Title,
		ReadOnlyHint:    a.ReadOnlyHint,
		DestructiveHint: &destructive,
		IdempotentHint:  a.IdempotentHint,
		OpenWorldHint:   &openWorld,
	}
}

// handler runs calls of one registry tool through the pipeline.
func (s *Server) handler(name string) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(s.calls, cancel)()
		var host tools.Host = newHost(req.Session, req.Params.GetProgressToken(), s.log)
		if s.callHost != nil {
			host = s.callHost(req, host)
		}
		resp, err := s.pipeline.Call(ctx, host, engine.Request{Name: name, Input: req.Params.Arguments})
		if err != nil {
			return nil, err // cancelled: the SDK answers the cancellation
		}
		return toMCPResult(resp.Result), nil
	}
}

// toMCPResult converts a toolhost result. Structured output is passed on
// only when it is a JSON object, as MCP requires.
func toMCPResult(r *tools.Result) *sdk.CallToolResult {
	out := &sdk.CallToolResult{IsError: r.IsError, Content: []sdk.Content{}}
	for _, c := range r.Content {
		switch c.Type {
		case "image":
			data, err := base64.StdEncoding.DecodeString(c.Data)
			if err != nil {
				out.Content = append(out.Content, &sdk.TextContent{Text: "[an image that could not be decoded]"})
				continue
			}
			out.Content = append(out.Content, &sdk.ImageContent{Data: data, MIMEType: c.MimeType})
		default:
			out.Content = append(out.Content, &sdk.TextContent{Text: c.Text})
		}
	}
	if r.Structured != nil {
		if b, err := json.Marshal(r.Structured); err == nil && len(b) > 0 && b[0] == '{' {
			out.StructuredContent = json.RawMessage(b)
		}
	}
	return out
}
