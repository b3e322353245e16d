// Package lspserver serves toolhost to editors: JSON-RPC 2.0 with LSP
// framing on a pair of streams, the LSP lifecycle (initialize, shutdown,
// exit), document synchronisation into the workspace overlay, the custom
// toolhost/* methods, and the Host adapter through which tools reach the
// editor (workspace/applyEdit, permission prompts, questions, progress).
//
// The connection is its own: a Stream (LSP framing that survives bad input;
// the messages, their faults and the backpressure are internal/rpcfault's,
// shared with toolhost mcp), a read loop that handles notifications in
// arrival order and runs each request in its own goroutine (so a long Bash
// does not hold up a Read sent after it), and calls to the client matched
// to their answers by id.
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

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/toolhost/toolhost/ideserver"
	"github.com/toolhost/toolhost/internal/background"
	"github.com/toolhost/toolhost/internal/rpcfault"
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
	stream := NewStream(in, out, opts.MaxMessageBytes, opts.Log)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &server{
		opts:     opts,
		stream:   stream,
		ctx:      ctx,
		exited:   make(chan struct{}),
		ready:    make(chan struct{}),
		readDone: make(chan struct{}),

		endpointReady: make(chan struct{}),
		ideReady:      make(chan struct{}),
		inflight:      map[jsonrpc.ID]*inflightCall{},
		calls:         map[jsonrpc.ID]chan *jsonrpc.Response{},
		progress:      map[string]func(){},
		bg:            background.New(opts.Log),
	}
	s.trace.Store(traceOff)
	go s.readLoop()

	var err error
	select {
	case <-s.exited:
		if !s.shutdown.Load() {
			err = ErrExitWithoutShutdown
		}
	case <-s.readDone:
		if !s.shutdown.Load() {
			err = ErrExitWithoutShutdown
			if s.readErr != nil && !errors.Is(s.readErr, io.EOF) {
				err = fmt.Errorf("%w: %v", ErrExitWithoutShutdown, s.readErr)
			}
		}
	case <-ctx.Done():
		err = ctx.Err()
	}
	// Stop writing first: nothing may reach a client that said exit.
	_ = stream.Close()
	cancel()
	if stream.closer != nil {
		// Closing the input ended the read loop's read. An input that
		// cannot be closed (a terminal) may hold it until its next
		// message; it starts nothing then (stopping is set below).
		<-s.readDone
	}
	s.inflightMu.Lock()
	s.stopping = true
	s.inflightMu.Unlock()
	s.cancelAll()
	s.requests.Wait()
	// The endpoint's start runs in bg: once bg is done, it is there or
	// never will be.
	s.bg.Close()
	if ide := s.ide.Load(); ide != nil {
		ide.Close()
	}
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
	// ctx ends when Serve returns; request contexts derive from it.
	ctx context.Context

	// readDone is closed when the read loop ends; readErr, set before, is
	// why.
	readDone chan struct{}
	readErr  error

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

	// requests counts running request goroutines; Add only under
	// inflightMu, while stopping is not set.
	requests sync.WaitGroup
	// bg owns the other work the server starts aside (compiling schemas);
	// Serve ends it and waits for it before closing the session.
	bg *background.Group

	// caps are the client's capabilities and sess the session; initialize
	// sets each once (caps first: the session may ask the user while it
	// starts) and nothing changes them after.
	caps atomic.Pointer[clientCapabilities]
	sess atomic.Pointer[session.Session]
	// clientName is the client's clientInfo.name, set by initialize
	// before sess (the change journal names the editor's own agent by it).
	clientName string

	inflightMu sync.Mutex
	// inflight are the running requests by id, for $/cancelRequest.
	inflight map[jsonrpc.ID]*inflightCall
	// stopping is set once Serve stops: no request starts after it.
	stopping bool

	callsMu sync.Mutex
	// calls are the calls to the client awaiting their answers, by id;
	// lastCall numbers them.
	calls    map[jsonrpc.ID]chan *jsonrpc.Response
	lastCall int

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
	// ide is Claude Code's IDE listener, when it runs (claudeide.go).
	ide atomic.Pointer[ideserver.Server]
	// ideReady is closed once the IDE listener started, failed, or is off.
	ideReady chan struct{}
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

// readLoop reads the client's messages until the input ends: answers go
// to the calls awaiting them, notifications are handled in order, requests
// are dispatched. It never blocks on the client.
func (s *server) readLoop() {
	defer close(s.readDone)
	for {
		msg, _, err := s.stream.Read(s.ctx)
		if err != nil {
			s.readErr = err
			return
		}
		select {
		case <-s.exited:
			// An input that cannot be closed may still deliver messages
			// after exit; the session is over.
			continue
		default:
		}
		switch m := msg.(type) {
		case *jsonrpc.Response:
			s.answered(m)
		case *jsonrpc.Request:
			if m.IsCall() {
				s.dispatchCall(m)
				continue
			}
			func() {
				defer func() {
					if p := recover(); p != nil {
						s.opts.Log.Error("a notification panicked", "method", m.Method, "panic", p, "stack", string(debug.Stack()))
					}
				}()
				s.handleNotification(s.ctx, m.Method, m.Params)
			}()
			// The handlers copy what they keep: a document's text, megabytes
			// maybe, arrives next in the same buffer.
			s.stream.Recycle()
		}
	}
}

// dispatchCall answers lifecycle faults and the lifecycle requests at once,
// in order, and starts every other request in its own goroutine.
func (s *server) dispatchCall(call *jsonrpc.Request) {
	method, params, id := call.Method, call.Params, call.ID
	initialized := s.session() != nil
	switch {
	case s.shutdown.Load():
		s.reply(id, nil, rpcfault.Errorf(rpcfault.CodeInvalidRequest,
			"%s: the server is shutting down (shutdown was received); only exit is accepted", method))
		return
	case method == "initialize":
		if initialized {
			s.reply(id, nil, rpcfault.Errorf(rpcfault.CodeInvalidRequest, "initialize: the server is already initialized"))
			return
		}
		res, err := s.initialize(params)
		s.reply(id, res, err)
		return
	case !initialized:
		s.reply(id, nil, rpcfault.Errorf(rpcfault.CodeServerNotInitialized,
			"%s: the server is not initialized; send initialize first", method))
		return
	case method == "shutdown":
		s.shutdown.Store(true)
		s.cancelAll()
		s.reply(id, nil, nil)
		return
	}

	ctx, cancel := context.WithCancel(s.ctx)
	fl := &inflightCall{cancel: cancel}
	s.inflightMu.Lock()
	if s.stopping {
		s.inflightMu.Unlock()
		cancel()
		return
	}
	s.inflight[id] = fl
	s.requests.Add(1)
	s.inflightMu.Unlock()
	go func() {
		defer s.requests.Done()
		defer func() {
			s.inflightMu.Lock()
			if s.inflight[id] == fl {
				delete(s.inflight, id)
			}
			s.inflightMu.Unlock()
			cancel()
		}()
		res, err := s.handleCallSafely(ctx, call, fl)
		if fl.cancelled.Load() || (err != nil && ctx.Err() != nil) {
			res, err = nil, rpcfault.Errorf(rpcfault.CodeRequestCancelled, "%s: the request was cancelled", method)
		}
		s.reply(id, res, err)
	}()
}

// handleCallSafely runs handleCall and turns a panic into an internal
// error: one broken request must not take the editor's server down.
func (s *server) handleCallSafely(ctx context.Context, call *jsonrpc.Request, fl *inflightCall) (res any, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.opts.Log.Error("a request panicked", "method", call.Method, "panic", p, "stack", string(debug.Stack()))
			res, err = nil, rpcfault.Errorf(rpcfault.CodeInternalError, "%s failed inside the server: %v", call.Method, p)
		}
	}()
	return s.handleCall(ctx, call, fl)
}

// reply sends a result or error; an error without a JSON-RPC code is an
// internal error.
func (s *server) reply(id jsonrpc.ID, result any, err error) {
	resp := &jsonrpc.Response{ID: id}
	if err == nil && result != nil {
		resp.Result, err = encodeJSON(result)
		if err != nil {
			err = fmt.Errorf("encoding the result: %w", err)
		}
	}
	if err != nil {
		resp.Result, resp.Error = nil, rpcfault.WireError(err, rpcfault.CodeInternalError)
	}
	if werr := s.stream.Write(resp); werr != nil {
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
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(params, &p)
	id, err := rpcfault.ParseID(p.ID)
	if err != nil || !id.IsValid() {
		s.opts.Log.Warn("ignored $/cancelRequest without a valid id", "params", string(params))
		return
	}
	s.inflightMu.Lock()
	fl := s.inflight[id]
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
	var raw json.RawMessage
	var err error
	// recycled is set for large params that encode themselves (an
	// applyEdit with a Write's content): they go into a recycled buffer,
	// given back as soon as they are sent, for the client's didChange of
	// the same size that follows. Such params carry no reviewId or callId,
	// so a cancellation names the id alone.
	recycled := false
	if a, ok := params.(jsonAppender); ok && a.JSONSize() >= recycleMin {
		raw, recycled = a.AppendJSON(bodyBuffer(a.JSONSize())[:0]), true
	} else if raw, err = encodeJSON(params); err != nil {
		return fmt.Errorf("%s: encoding params: %w", method, err)
	}
	answer := make(chan *jsonrpc.Response, 1)
	s.callsMu.Lock()
	s.lastCall++
	id, _ := jsonrpc.MakeID(float64(s.lastCall))
	s.calls[id] = answer
	s.callsMu.Unlock()
	defer func() {
		s.callsMu.Lock()
		delete(s.calls, id)
		s.callsMu.Unlock()
	}()
	err = s.stream.Write(&jsonrpc.Request{ID: id, Method: method, Params: raw})
	if recycled {
		recycleBody(raw)
		raw = nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	var resp *jsonrpc.Response
	select {
	case resp = <-answer:
	case <-s.readDone:
		return fmt.Errorf("%s: the client went away: %w", method, context.Canceled)
	case <-ctx.Done():
		_ = s.notify("$/cancelRequest", cancelParams(id, raw))
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
	if resp.Error != nil {
		return fmt.Errorf("%s: %w", method, resp.Error)
	}
	if result != nil && len(resp.Result) > 0 {
		if err := json.Unmarshal(resp.Result, result); err != nil {
			return fmt.Errorf("%s: the client's answer does not fit: %w", method, err)
		}
	}
	return nil
}

// cancelParams are the params of the $/cancelRequest that abandons the
// request id whose params were params: the id, and the reviewId or callId
// those params carry. A client whose transport does not show a handler its
// request's id (Neovim's own, from 0.10) finds what to close by those.
func cancelParams(id jsonrpc.ID, params json.RawMessage) map[string]any {
	out := map[string]any{"id": id.Raw()}
	var named struct {
		ReviewID string `json:"reviewId"`
		CallID   string `json:"callId"`
	}
	// Params that are not an object name nothing; the id is still sent.
	_ = json.Unmarshal(params, &named)
	if named.ReviewID != "" {
		out["reviewId"] = named.ReviewID
	}
	if named.CallID != "" {
		out["callId"] = named.CallID
	}
	return out
}

// answered hands the client's answer to the call awaiting it.
func (s *server) answered(resp *jsonrpc.Response) {
	s.callsMu.Lock()
	answer := s.calls[resp.ID]
	delete(s.calls, resp.ID)
	s.callsMu.Unlock()
	if answer == nil {
		s.opts.Log.Debug("an answer to no call awaiting one", "id", resp.ID.Raw())
		return
	}
	answer <- resp
}

// notify sends a notification; it fails quietly once the connection is gone.
func (s *server) notify(method string, params any) error {
	raw, err := encodeJSON(params)
	if err != nil {
		return fmt.Errorf("%s: encoding params: %w", method, err)
	}
	return s.stream.Write(&jsonrpc.Request{Method: method, Params: raw})
}

// jsonAppender is a value that writes its own JSON, the bytes
// encoding/json would give, in one pass into a buffer it sizes itself
// (workspace/applyEdit's params, which carry a Write's whole content).
type jsonAppender interface {
	AppendJSON(b []byte) []byte
	// JSONSize is about the size of the JSON, for sizing the buffer.
	JSONSize() int
}

// encodeJSON encodes with encoding/json; the wire form is the standard
// one (segmentio/encoding would drop fields promoted through an embedded
// pointer, the "structured" of a engine.Response). A value encoded already
// is taken as it is, and one that encodes itself does so.
func encodeJSON(v any) (json.RawMessage, error) {
	switch v := v.(type) {
	case json.RawMessage:
		return v, nil
	case jsonAppender:
		return v.AppendJSON(nil), nil
	}
	return json.Marshal(v)
}
