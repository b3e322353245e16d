// Package lspserver serves toolhost to editors: JSON-RPC 2.0 with LSP
// framing on a pair of streams, the LSP lifecycle (initialize, shutdown,
// exit), document synchronisation into the workspace overlay, the custom
// toolhost/* methods, and the Host adapter through which tools reach the
// editor (workspace/applyEdit, permission prompts, questions, progress).
//
// It uses go.lsp.dev/jsonrpc2 for its message types and connection, with its
// own Stream (which survives bad input) and its own dispatcher: notifications
// are handled in arrival order in the read loop, each request runs in its own
// goroutine so a long Bash does not hold up a Read sent after it.
package lspserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"go.lsp.dev/jsonrpc2"

	"github.com/toolhost/toolhost/internal/background"
	"github.com/toolhost/toolhost/internal/version"
	"github.com/toolhost/toolhost/session"
)

// Options configure Serve.
type Options struct {
	// Version is reported as serverInfo.version; empty means toolhost's
	// own (internal/version).
	Version string
	// Log receives the server's own logs (e.g. stderr); nil discards them.
	// The session's logs go there and, by $/setTrace level, to the client as
	// window/logMessage.
	Log *slog.Logger
	// MaxMessageBytes caps a message's Content-Length; 0 means the
	// server.maxMessageBytes setting's default (64 MiB). An
	// initializationOptions value of server.maxMessageBytes replaces it.
	MaxMessageBytes int64
	// NewSession builds the session on initialize; nil means session.New.
	NewSession func(session.Options) (*session.Session, error)
	// OnSession, when set, is called with the new session before the
	// initialize result is sent (to register extra tools, for example).
	OnSession func(*session.Session)
	// AgentEndpoint serves the session to other agents over MCP on a
	// loopback port, announced in a discovery file (docs/agents.md),
	// unless the setting server.agentEndpoint is false.
	AgentEndpoint bool
}

// ErrExitWithoutShutdown is returned by Serve when the client sent exit, or
// closed the connection, without shutdown first (LSP: exit code 1).
var ErrExitWithoutShutdown = errors.New("the client ended the session without shutdown")

// Serve runs one editor session on in and out until the client sends exit,
// the input ends, or ctx is done. It returns nil after shutdown + exit, and
// an error otherwise.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Version == "" {
		opts.Version = version.String()
	}
	if opts.NewSession == nil {
		opts.NewSession = session.New
	}
	flow := newFlow(out)
	stream := NewStream(in, flow, opts.MaxMessageBytes, opts.Log)
	conn := jsonrpc2.NewConn(stream)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &server{
		opts:   opts,
		stream: stream,
		flow:   flow,
		conn:   conn,
		ctx:    ctx,
		exited: make(chan struct{}),
		ready:  make(chan struct{}),

		endpointReady: make(chan struct{}),
		inflight:      map[jsonrpc2.ID]*inflightCall{},
		progress:      map[string]func(){},
		bg:            background.New(opts.Log),
	}
	s.trace.Store(traceOff)
	conn.Go(ctx, s.handle)

	var err error
	select {
	case <-s.exited:
		if !s.shutdown.Load() {
			err = ErrExitWithoutShutdown
		}
	case <-conn.Done():
		if !s.shutdown.Load() {
			err = ErrExitWithoutShutdown
			if cerr := conn.Err(); cerr != nil && !errors.Is(cerr, io.EOF) {
				err = fmt.Errorf("%w: %v", ErrExitWithoutShutdown, cerr)
			}
		}
	case <-ctx.Done():
		err = ctx.Err()
	}
	// Stop writing first: nothing may reach a client that said exit.
	_ = conn.Close()
	cancel()
	s.cancelAll()
	s.requests.Wait()
	// The endpoint's start runs in bg: once bg is done, it is there or
	// never will be.
	s.bg.Close()
	if e := s.agentEndpoint(); e != nil {
		e.close()
	}
	if sess := s.session(); sess != nil {
		sess.Close()
	}
	return err
}

// server is one connection's state.
type server struct {
	opts   Options
	stream *Stream
	conn   jsonrpc2.Conn
	// flow holds the read loop while the client reads nothing (backpressure.go).
	flow *flow
	// ctx ends when Serve returns; request contexts derive from it.
	ctx context.Context

	// exited is closed by the exit notification.
	exited   chan struct{}
	exitOnce sync.Once

	// shutdown is set by the shutdown request.
	shutdown atomic.Bool
	// trace is the $/setTrace level ("off", "messages", "verbose").
	trace atomic.Value

	// ready is closed when the client sent initialized: LSP forbids
	// requests to the client before it (MCP approvals wait for it).
	ready     chan struct{}
	readyOnce sync.Once

	// requests counts running request goroutines.
	requests sync.WaitGroup
	// bg owns the other work the server starts aside (compiling schemas);
	// Serve ends it and waits for it before closing the session.
	bg *background.Group

	// caps are the client's capabilities and sess the session; initialize
	// sets each once (caps first: the session may ask the user while it
	// starts) and nothing changes them after.
	caps atomic.Pointer[clientCapabilities]
	sess atomic.Pointer[session.Session]

	inflightMu sync.Mutex
	// inflight are the running requests by id, for $/cancelRequest.
	inflight map[jsonrpc2.ID]*inflightCall

	progressMu sync.Mutex
	// progress maps a work-done token to the cancel of its call, for
	// window/workDoneProgress/cancel.
	progress map[string]func()
	// callSeq numbers progress tokens.
	callSeq int

	// approvals are the calls checked for an approved toolhost/callTool.
	approvals approvals
	// endpoint is the session's MCP endpoint for other agents, when it
	// runs; set once, after initialize, when it has started.
	endpoint atomic.Pointer[endpoint]
	// endpointReady is closed once the endpoint started, failed, or is off.
	endpointReady chan struct{}
}

// agentEndpoint is the session's MCP endpoint; nil when it does not run.
func (s *server) agentEndpoint() *endpoint { return s.endpoint.Load() }

// inflightCall is a running request.
type inflightCall struct {
	cancel context.CancelFunc
	// cancelled is set when the client cancelled it.
	cancelled atomic.Bool
}

// session is the session initialize built; nil before.
func (s *server) session() *session.Session { return s.sess.Load() }

// capabilities are the client's capabilities; zero before initialize.
func (s *server) capabilities() clientCapabilities {
	if c := s.caps.Load(); c != nil {
		return *c
	}
	return clientCapabilities{}
}

// handle is the jsonrpc2 handler; it runs in the read loop, so it never
// blocks on the client.
func (s *server) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	select {
	case <-s.exited:
		// An input that cannot be closed may still deliver messages after
		// exit; the session is over.
		return nil
	default:
	}
	params := s.stream.Params(req)
	switch r := req.(type) {
	case *jsonrpc2.Notification:
		defer func() {
			if p := recover(); p != nil {
				s.opts.Log.Error("a notification panicked", "method", r.Method(), "panic", p, "stack", string(debug.Stack()))
			}
		}()
		s.handleNotification(ctx, r.Method(), params)
	case *jsonrpc2.Call:
		s.dispatchCall(reply, r, params)
	}
	return nil
}

// dispatchCall answers lifecycle faults and the lifecycle requests at once,
// in order, and starts every other request in its own goroutine.
func (s *server) dispatchCall(reply jsonrpc2.Replier, call *jsonrpc2.Call, params json.RawMessage) {
	method := call.Method()
	initialized := s.session() != nil
	switch {
	case s.shutdown.Load():
		s.reply(reply, nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest,
			fmt.Sprintf("%s: the server is shutting down (shutdown was received); only exit is accepted", method)))
		return
	case method == "initialize":
		if initialized {
			s.reply(reply, nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize: the server is already initialized"))
			return
		}
		res, err := s.initialize(params)
		s.reply(reply, res, err)
		return
	case !initialized:
		s.reply(reply, nil, jsonrpc2.NewError(jsonrpc2.ServerNotInitialized,
			fmt.Sprintf("%s: the server is not initialized; send initialize first", method)))
		return
	case method == "shutdown":
		s.shutdown.Store(true)
		s.cancelAll()
		s.reply(reply, nil, nil)
		return
	}

	s.flow.start(s.ctx)
	ctx, cancel := context.WithCancel(s.ctx)
	fl := &inflightCall{cancel: cancel}
	id := call.ID()
	s.inflightMu.Lock()
	s.inflight[id] = fl
	s.inflightMu.Unlock()
	s.requests.Add(1)
	go func() {
		defer s.requests.Done()
		defer s.flow.done() // once the answer is written
		defer func() {
			s.inflightMu.Lock()
			if s.inflight[id] == fl {
				delete(s.inflight, id)
			}
			s.inflightMu.Unlock()
			cancel()
		}()
		res, err := s.handleCallSafely(ctx, call, params, fl)
		if fl.cancelled.Load() || (err != nil && ctx.Err() != nil) {
			res, err = nil, jsonrpc2.NewError(RequestCancelled, fmt.Sprintf("%s: the request was cancelled", method))
		}
		s.reply(reply, res, err)
	}()
}

// handleCallSafely runs handleCall and turns a panic into an internal
// error: one broken request must not take the editor's server down.
func (s *server) handleCallSafely(ctx context.Context, call *jsonrpc2.Call, params json.RawMessage, fl *inflightCall) (res any, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.opts.Log.Error("a request panicked", "method", call.Method(), "panic", p, "stack", string(debug.Stack()))
			res, err = nil, jsonrpc2.NewError(jsonrpc2.InternalError, fmt.Sprintf("%s failed inside the server: %v", call.Method(), p))
		}
	}()
	return s.handleCall(ctx, call, params, fl)
}

// RequestCancelled is LSP's error code for a request the client cancelled.
const RequestCancelled jsonrpc2.Code = -32800

// reply sends a result or error. It uses a context that is never cancelled:
// jsonrpc2 silently drops a reply written with a cancelled context.
func (s *server) reply(reply jsonrpc2.Replier, result any, err error) {
	if err != nil {
		var rpcErr *jsonrpc2.Error
		if !errors.As(err, &rpcErr) {
			// A plain Go error would go out with code 0.
			err = jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
		}
		result = nil
	} else if result != nil {
		raw, merr := encodeJSON(result)
		if merr != nil {
			result, err = nil, jsonrpc2.NewError(jsonrpc2.InternalError, "encoding the result: "+merr.Error())
		} else {
			result = raw
		}
	}
	if werr := reply(context.WithoutCancel(s.ctx), result, err); werr != nil {
		s.opts.Log.Debug("could not send a reply", "err", werr)
	}
}

// cancelAll cancels every running request.
func (s *server) cancelAll() {
	s.inflightMu.Lock()
	defer s.inflightMu.Unlock()
	for _, fl := range s.inflight {
		fl.cancel()
	}
}

// cancelRequest handles $/cancelRequest for a numeric or string id.
func (s *server) cancelRequest(params json.RawMessage) {
	var p struct {
		ID *jsonrpc2.ID `json:"id"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.ID == nil {
		s.opts.Log.Warn("ignored $/cancelRequest without a valid id", "params", string(params))
		return
	}
	s.inflightMu.Lock()
	fl := s.inflight[*p.ID]
	s.inflightMu.Unlock()
	if fl == nil {
		return // already answered
	}
	fl.cancelled.Store(true)
	fl.cancel()
}

// exit ends Serve.
func (s *server) exit() {
	s.exitOnce.Do(func() { close(s.exited) })
}

// callClient sends a request to the client and waits for its answer. The
// wait ends with ctx or when the connection goes away; an abandoned request
// is cancelled at the client.
func (s *server) callClient(ctx context.Context, method string, params, result any) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-s.conn.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	raw, err := encodeJSON(params)
	if err != nil {
		return fmt.Errorf("%s: encoding params: %w", method, err)
	}
	// The call is made with a token the stream replaces by raw as it
	// writes: jsonrpc2 would parse and compact raw once more.
	token, release := s.stream.Stage(raw)
	defer release()
	var answer json.RawMessage
	id, err := s.conn.Call(ctx, method, token, &answer)
	if err != nil && ctx.Err() != nil {
		select {
		case <-s.conn.Done():
			return fmt.Errorf("%s: the client went away: %w", method, ctx.Err())
		default:
		}
		_ = s.conn.Notify(context.WithoutCancel(ctx), "$/cancelRequest", map[string]any{"id": &id})
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if result != nil && len(answer) > 0 {
		if err := json.Unmarshal(answer, result); err != nil {
			return fmt.Errorf("%s: the client's answer does not fit: %w", method, err)
		}
	}
	return nil
}

// notify sends a notification; it fails quietly once the connection is gone.
func (s *server) notify(method string, params any) error {
	raw, err := encodeJSON(params)
	if err != nil {
		return fmt.Errorf("%s: encoding params: %w", method, err)
	}
	return s.conn.Notify(context.WithoutCancel(s.ctx), method, raw)
}

// encodeJSON encodes with encoding/json. jsonrpc2 encodes with
// segmentio/encoding, which drops fields promoted through an embedded
// pointer (the "structured" of a tools.Response) and escapes differently;
// handing it a json.RawMessage makes the wire form the standard one.
func encodeJSON(v any) (json.RawMessage, error) {
	if raw, ok := v.(json.RawMessage); ok {
		return raw, nil
	}
	return json.Marshal(v)
}
