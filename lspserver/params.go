package lspserver

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// jsonrpc2 keeps a message's params inside the message: decoding a message
// copies them after parsing them once more, and building a call parses,
// compacts and HTML-escapes them once more. For a Write of megabytes (its
// content in toolhost/callTool, in the workspace/applyEdit sent back, and in
// the editor's didChange) each of those passes costs tens of milliseconds.
// The Stream carries large params beside the messages instead:
//
//   - heldParams: a request Read returns comes without its params; the
//     handler takes them with Stream.Params. jsonrpc2's read loop hands each
//     message to the handler before it reads the next, so one slot is enough.
//   - stagedParams: a call to the client is made with a small token for
//     params; Write puts the staged params in its place when it frames the
//     message.

// heldParams holds the params of the request Read returned last until the
// handler takes them.
type heldParams struct {
	mu sync.Mutex
	// msg is the request whose params are held; nil when none is.
	msg    jsonrpc2.Message
	params json.RawMessage
}

func (h *heldParams) hold(msg jsonrpc2.Message, params json.RawMessage) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.msg, h.params = msg, params
}

// Params returns req's params: those Read held for it, or else those req
// carries. The held params are given out once.
func (s *Stream) Params(req jsonrpc2.Request) json.RawMessage {
	s.held.mu.Lock()
	defer s.held.mu.Unlock()
	if s.held.msg != nil && s.held.msg == jsonrpc2.Message(req) {
		params := s.held.params
		s.held.msg, s.held.params = nil, nil
		return params
	}
	return req.Params()
}

// stagedParams maps the tokens calls are made with to the params they stand
// for.
type stagedParams struct {
	mu sync.Mutex
	// seq numbers the tokens.
	seq     uint64
	byToken map[string]json.RawMessage
}

// stagedPrefix starts every token; no params the server sends look like it.
const stagedPrefix = `{"toolhost.staged":`

// Stage returns the token to make a call with instead of params, and a
// release to call once the call is over. params must be valid JSON.
func (s *Stream) Stage(params json.RawMessage) (token json.RawMessage, release func()) {
	st := &s.staged
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.byToken == nil {
		st.byToken = map[string]json.RawMessage{}
	}
	st.seq++
	key := stagedPrefix + strconv.FormatUint(st.seq, 10) + "}"
	st.byToken[key] = params
	return json.RawMessage(key), func() {
		st.mu.Lock()
		defer st.mu.Unlock()
		delete(st.byToken, key)
	}
}

// lookup returns the params token stands for, or token itself when it is
// not a staged token.
func (st *stagedParams) lookup(token json.RawMessage) json.RawMessage {
	if !bytes.HasPrefix(token, []byte(stagedPrefix)) {
		return token
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if params, ok := st.byToken[string(token)]; ok {
		return params
	}
	return token
}
