package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/rpcfault"
	"github.com/toolhost/toolhost/settings"
)

// stdio is toolhost mcp's side of MCP's stdio transport (newline-delimited
// JSON-RPC), as the SDK's Transport and Connection. The SDK's own stdio
// transport ends the whole session on the first line it cannot decode, and
// a client's single bad line would take every later call with it; here such
// a line is answered with a JSON-RPC error (rpcfault decides which) and
// skipped, and a line over the cap is read past without being kept.
// Batches are taken under the protocol versions that have them (2025-03-26
// and before) and answered as batches.
//
// It also holds a client that does not read its answers (rpcfault.Flow),
// and at the end of the input it waits for the answers to the requests
// already read: a client that closes its input after its last request
// (echo '{...}' | toolhost mcp) still gets the answer.
type stdio struct {
	max   int
	log   *slog.Logger
	flow  *rpcfault.Flow
	drain time.Duration
	// closer closes the input, when it can be closed, to end a blocked read.
	closer io.Closer

	// in is read by the reader goroutine, which Connect starts and which
	// sends what it reads on items; ctx ends with Close.
	in        *bufio.Reader
	reader    sync.WaitGroup
	items     chan item
	ctx       context.Context
	cancel    context.CancelFunc
	closeOnce sync.Once

	// version is the protocol version the initialize request negotiates,
	// by the SDK's rule (empty before); it belongs to the reader goroutine.
	version string
	// ended is the error that ended the input; it belongs to Read, which
	// the SDK calls from one goroutine.
	ended error

	// answered, when set before Connect, runs once after the first answer
	// was written (the reply to initialize): work the handshake does not
	// need starts there, off the path to that reply.
	answered     func()
	answeredOnce sync.Once
	// laterMax, when set before Connect, gives the cap of the lines after
	// the first (0: keep max); the reader calls it once, when the second
	// line begins to arrive (or the input ends), and may wait in it (for
	// the session's settings).
	laterMax func() int
}

// item is a message for the SDK, or the error that ended the input.
type item struct {
	msg jsonrpc.Message
	err error
}

// drainTimeout bounds how long the end of the input waits for the answers
// to requests already made: one that closes its input to stop the server
// does not wait long for a slow call.
const drainTimeout = 10 * time.Second

// firstVersionWithoutBatches is the MCP version that dropped JSON-RPC
// batches.
const firstVersionWithoutBatches = "2025-06-18"

// newStdio serves in and out; maxBytes caps a line (0: the default of the
// server.maxMessageBytes setting). Tune flow and drain before Connect.
func newStdio(in io.Reader, out io.Writer, maxBytes int, log *slog.Logger) *stdio {
	if maxBytes <= 0 {
		maxBytes = int(settings.Defaults().Server.MaxMessageBytes)
	}
	t := &stdio{max: maxBytes, log: log, flow: rpcfault.NewFlow(out, newline, log), drain: drainTimeout,
		in: bufio.NewReaderSize(in, 64<<10), items: make(chan item)}
	t.ctx, t.cancel = context.WithCancel(context.Background())
	t.closer = rpcfault.InputCloser(in)
	return t
}

// Connect implements sdk.Transport: a stdio serves one connection, which
// starts reading its input.
func (t *stdio) Connect(context.Context) (sdk.Connection, error) {
	t.reader.Go(t.readLines)
	return t, nil
}

// SessionID implements sdk.Connection; stdio has no sessions.
func (t *stdio) SessionID() string { return "" }

// readLines reads the input a line at a time, and decodes it, for Read,
// which Close can then end even when the input cannot be closed. Before
// each line it waits for room (rpcfault.Flow), and it notes the requests it
// hands on before the next wait, so that the cap is exact. It returns when
// the input ends or the transport closes.
func (t *stdio) readLines() {
	for {
		if t.flow.Admit(t.ctx) != nil {
			return
		}
		text, size, err := rpcfault.ReadLine(t.in, t.max)
		var msgs []jsonrpc.Message
		switch trimmed := bytes.TrimSpace(text); {
		case size > t.max:
			t.flow.Refuse(&rpcfault.Fault{Code: rpcfault.CodeInvalidRequest}, fmt.Sprintf("the message is longer than %d bytes and was skipped; send smaller messages (for large files, write them in parts), or start toolhost mcp with a larger -max-message-bytes (or server.maxMessageBytes)", t.max))
		case len(trimmed) > 0:
			msgs = t.take(trimmed)
		}
		items := make([]item, 0, len(msgs)+1)
		for _, msg := range msgs {
			items = append(items, item{msg: msg})
		}
		if err != nil {
			items = append(items, item{err: err})
		}
		for _, it := range items {
			select {
			case t.items <- it:
			case <-t.ctx.Done():
				return
			}
		}
		if err != nil {
			return
		}
		if t.laterMax != nil {
			// A client sends its second line (notifications/initialized)
			// once it has the initialize reply; waiting for it keeps what
			// laterMax waits for (the session) from being started beside
			// the handshake, which delayed the reply. What an error is,
			// the next ReadLine says again.
			_, _ = t.in.Peek(1)
			if m := t.laterMax(); m > 0 {
				t.max = m
			}
			t.laterMax = nil
		}
	}
}

// Read implements sdk.Connection: the next message the SDK can take. At
// the end of the input it waits for the answers to the requests read.
func (t *stdio) Read(ctx context.Context) (jsonrpc.Message, error) {
	if t.ended == nil {
		select {
		case it := <-t.items:
			if it.err == nil {
				return it.msg, nil
			}
			t.ended = it.err
		case <-t.ctx.Done():
			return nil, io.EOF
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if errors.Is(t.ended, io.EOF) && !t.flow.Drain(t.ctx, t.drain) {
		t.log.Warn("the input ended and some requests were still unanswered after the wait; ending anyway", "wait", t.drain)
	}
	return nil, t.ended
}

// take decodes a line: the messages to hand the SDK (several for a
// batch), none when the line was answered as a fault.
func (t *stdio) take(text []byte) []jsonrpc.Message {
	if text[0] != '[' {
		msg := t.flow.Receive(text, faultMessage)
		if msg == nil {
			return nil
		}
		t.note(msg)
		return []jsonrpc.Message{msg}
	}
	var raw []json.RawMessage
	if f := rpcfault.CheckDepth(text); f != nil {
		t.flow.Refuse(f, faultMessage(f))
		return nil
	}
	switch err := json.Unmarshal(text, &raw); {
	case err != nil:
		_, f := rpcfault.Decode(text)
		t.flow.Refuse(f, faultMessage(f))
		return nil
	case t.version >= firstVersionWithoutBatches:
		t.flow.Refuse(&rpcfault.Fault{Code: rpcfault.CodeInvalidRequest}, fmt.Sprintf("JSON-RPC batches are not part of MCP %s; send one message per line", t.version))
		return nil
	case len(raw) == 0:
		t.flow.Refuse(&rpcfault.Fault{Code: rpcfault.CodeInvalidRequest}, "an empty batch; send one JSON-RPC 2.0 message per line")
		return nil
	}
	msgs := make([]jsonrpc.Message, len(raw))
	var ids []jsonrpc.ID
	for i, m := range raw {
		msg, f := rpcfault.Decode(m)
		if f != nil {
			t.flow.Refuse(&rpcfault.Fault{Code: rpcfault.CodeInvalidRequest}, fmt.Sprintf("message %d of the batch is not a JSON-RPC 2.0 message (%s); the batch was skipped", i+1, f.Reason))
			return nil
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			if slices.Contains(ids, req.ID) {
				t.flow.Refuse(&rpcfault.Fault{Code: rpcfault.CodeInvalidRequest}, fmt.Sprintf("message %d of the batch repeats the id of another; the batch was skipped", i+1))
				return nil
			}
			ids = append(ids, req.ID)
		}
		msgs[i] = msg
	}
	t.flow.Batch(ids)
	for _, msg := range msgs {
		t.note(msg)
	}
	return msgs
}

// note follows a message handed to the SDK: a cancelled request will not
// be answered (MCP answers no cancelled request); an initialize request
// sets the protocol version.
func (t *stdio) note(msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	switch {
	case !ok:
	case req.Method == "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(req.Params, &p)
		t.version = negotiatedVersion(p.ProtocolVersion)
	case req.Method == "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			if id, err := rpcfault.ParseID(p.RequestID); err == nil && id.IsValid() {
				t.flow.Forget(id)
			}
		}
	}
}

// faultMessage words a fault for an MCP client.
func faultMessage(f *rpcfault.Fault) string {
	if f.Code == rpcfault.CodeParseError {
		return "the message is " + f.Reason + "; send one JSON-RPC 2.0 message per line"
	}
	return "not a JSON-RPC 2.0 message (" + f.Reason + `); a message needs "jsonrpc": "2.0" and a "method" (with an "id" for a request) or a "result"/"error" with the "id" it answers`
}

// Write implements sdk.Connection: one message a line (a batch's answers
// together, rpcfault.Flow.Batch).
func (t *stdio) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.Error != nil {
		// The SDK refuses a request it cannot take (one before initialize,
		// a second initialize, params it cannot read) with an error that
		// has no JSON-RPC code: it is an invalid request.
		resp.Error = rpcfault.WireError(resp.Error, rpcfault.CodeInvalidRequest)
	}
	err := t.flow.Send(msg)
	if _, ok := msg.(*jsonrpc.Response); ok && t.answered != nil {
		t.answeredOnce.Do(t.answered)
	}
	return err
}

// newline frames a message on stdio.
func newline(dst []byte, _ int) (head, tail []byte) { return dst, lineEnd }

// lineEnd ends each message on stdio; only read.
var lineEnd = []byte{'\n'}

// Close implements sdk.Connection: it ends a Read under way, and closes
// the input when it can, so that the reader goroutine ends too.
func (t *stdio) Close() error {
	var err error
	t.closeOnce.Do(func() {
		t.cancel()
		if t.closer != nil {
			err = t.closer.Close()
		}
	})
	return err
}

// stop closes the transport and waits for its reader goroutine. An input
// that cannot be closed (a terminal) may hold that goroutine until its next
// line: it is not waited for, and the process ends first.
func (t *stdio) stop() {
	_ = t.Close()
	if t.closer != nil {
		t.reader.Wait()
	}
}

// negotiatedVersion is the version the server answers an initialize
// request for requested with, by the SDK's rule: the requested one when
// the server speaks it, else the newest it speaks.
func negotiatedVersion(requested string) string {
	versions := handshakeVersions()
	if slices.Contains(versions, requested) {
		return requested
	}
	return slices.Max(versions)
}
