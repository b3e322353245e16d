package rpcfault

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// DefaultInFlight is how many requests may wait for their answers while
// the client reads none of them. Past it the transport reads no further
// input until an answer is written, so a client that sends requests and
// never reads (a hung editor, a broken script) meets backpressure (its own
// writes block) instead of filling the server's memory with results. A
// client that reads its answers is never held, however many calls it has
// running, so the answers it owes the server (applyEdit, prompts) keep
// flowing.
const DefaultInFlight = 64

// ErrClosed is what Send returns once the Flow is closed.
var ErrClosed = errors.New("the connection is closed")

// Flow is a transport's traffic with one client, short of the framing: it
// decodes what the client sends (answering the faults), sends each message
// whole, and holds the reading of a client that does not read its answers.
type Flow struct {
	// Limit caps the requests unanswered while a write to the client is
	// stuck; 0 means DefaultInFlight. Set it before use.
	Limit int
	// Held, when set, is called as a wait for room starts (tests).
	Held func()

	// frame is what the transport sends before and after a body of size
	// bytes.
	frame Framing
	log   *slog.Logger

	// writeMu makes each Send reach the client whole.
	writeMu sync.Mutex
	out     io.Writer

	mu sync.Mutex
	// asked counts the requests read and not answered yet, by id.
	asked map[jsonrpc.ID]int
	// writing counts the Sends under way: one that does not end means the
	// client is not reading.
	writing int
	// batches maps the id of each request of a batch to its batch.
	batches map[jsonrpc.ID]*batch
	// closed is set by Close.
	closed bool
	// changed is closed, and replaced, whenever a request is answered or
	// forgotten or a Send ends.
	changed chan struct{}
}

// Framing appends to dst what a transport sends before a message's body
// of size bytes (a Content-Length header), and gives what it sends after
// it (a newline; a slice the Flow only reads).
type Framing func(dst []byte, size int) (head, tail []byte)

// NewFlow sends to out, each message's body framed by frame; log, when
// set, receives the faults.
func NewFlow(out io.Writer, frame Framing, log *slog.Logger) *Flow {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Flow{out: out, frame: frame, log: log, asked: map[jsonrpc.ID]int{}, batches: map[jsonrpc.ID]*batch{}, changed: make(chan struct{})}
}

// Receive decodes a message from the client. A fault is answered, worded
// by word around its reason, and gives nil; a request is noted as asked.
func (f *Flow) Receive(body []byte, word func(*Fault) string) jsonrpc.Message {
	msg, fault := Decode(body)
	if fault != nil {
		f.Refuse(fault, word(fault))
		return nil
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		f.Asked(req.ID)
	}
	return msg
}

// Refuse answers a fault in the client's input with message; a malformed
// response without an id is only logged.
func (f *Flow) Refuse(fault *Fault, message string) {
	if !fault.Answered() {
		f.log.Warn("dropped a malformed response from the client", "err", fault.Reason)
		return
	}
	f.log.Warn("bad message from the client", "code", fault.Code, "err", message)
	if err := f.SendBody(EncodeFault(fault, message)); err != nil {
		f.log.Debug("could not answer a bad message", "err", err)
	}
}

// batch collects the answers to a batch's requests.
type batch struct {
	ids     []jsonrpc.ID
	answers map[jsonrpc.ID][]byte
}

// Batch notes the requests of a batch (a JSON array of messages), each as
// asked: their answers go out together, as one array in the order of ids,
// once the last is in. The ids must differ.
func (f *Flow) Batch(ids []jsonrpc.ID) {
	b := &batch{ids: ids, answers: map[jsonrpc.ID][]byte{}}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, id := range ids {
		f.asked[id]++
		f.batches[id] = b
	}
}

// Send sends a message; a response crosses off the request it answers.
func (f *Flow) Send(msg jsonrpc.Message) error {
	head, payload, tail, err := encodeParts(msg)
	if err != nil {
		return err
	}
	r, ok := msg.(*jsonrpc.Response)
	if !ok {
		return f.send([][]byte{head, payload, tail}, nil)
	}
	f.mu.Lock()
	b := f.batches[r.ID]
	if b == nil {
		f.mu.Unlock()
		return f.send([][]byte{head, payload, tail}, []jsonrpc.ID{r.ID})
	}
	delete(f.batches, r.ID)
	b.answers[r.ID] = concat(head, payload, tail)
	complete := len(b.answers) == len(b.ids)
	f.mu.Unlock()
	if !complete {
		return nil // the batch waits for its other answers
	}
	all := []byte{'['}
	for i, id := range b.ids {
		if i > 0 {
			all = append(all, ',')
		}
		all = append(all, b.answers[id]...)
	}
	return f.SendBody(append(all, ']'), b.ids...)
}

// signal wakes the waiters; called with mu held.
func (f *Flow) signal() {
	close(f.changed)
	f.changed = make(chan struct{})
}

// Admit returns at once unless Limit requests are unanswered while a Send
// is stuck; then it waits until one of the two ends, or ctx does.
func (f *Flow) Admit(ctx context.Context) error {
	limit := f.Limit
	if limit <= 0 {
		limit = DefaultInFlight
	}
	for held := false; ; held = true {
		f.mu.Lock()
		full, changed := len(f.asked) >= limit && f.writing > 0, f.changed
		f.mu.Unlock()
		if !full {
			return nil
		}
		if !held && f.Held != nil {
			f.Held()
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Asked notes a request read from the client, to be answered.
func (f *Flow) Asked(id jsonrpc.ID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked[id]++
}

// Forget drops a request that will not be answered (MCP answers no
// request the client cancelled).
func (f *Flow) Forget(id jsonrpc.ID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answered(id)
}

// answered crosses off one request with id; called with mu held.
func (f *Flow) answered(id jsonrpc.ID) {
	switch n := f.asked[id]; {
	case n > 1:
		f.asked[id] = n - 1
	case n == 1:
		delete(f.asked, id)
		f.signal()
	}
}

// SendBody sends body, one whole message (or a batch of them); answered
// are the ids of the requests it answers.
func (f *Flow) SendBody(body []byte, answered ...jsonrpc.ID) error {
	return f.send([][]byte{body}, answered)
}

// bulkBytes is the size of a message past which its framing and parts are
// written one after the other instead of being copied into one buffer
// first: a workspace/applyEdit carrying a 5 MB Write would be copied twice
// more, into fresh memory, for one write call saved.
const bulkBytes = 64 << 10

// send writes one message, its body made of parts, whole (no other
// message between its writes); answered are the ids of the requests it
// answers.
func (f *Flow) send(parts [][]byte, answered []jsonrpc.ID) error {
	size := 0
	for _, p := range parts {
		size += len(p)
	}
	// A small message is copied into one buffer, one write; a large one
	// is written in its parts.
	var head, tail, whole []byte
	if size < bulkBytes {
		whole, tail = f.frame(make([]byte, 0, size+64), size)
		for _, p := range parts {
			whole = append(whole, p...)
		}
		whole = append(whole, tail...)
	} else {
		head, tail = f.frame(nil, size)
	}
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return ErrClosed
	}
	f.writing++
	f.mu.Unlock()
	f.writeMu.Lock()
	err := f.write(whole, head, parts, tail)
	f.writeMu.Unlock()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writing--
	for _, id := range answered {
		f.answered(id)
	}
	f.signal()
	return err
}

// write writes whole, or else head, parts and tail in turn; called with
// writeMu held.
func (f *Flow) write(whole, head []byte, parts [][]byte, tail []byte) error {
	if whole != nil {
		_, err := f.out.Write(whole)
		return err
	}
	for _, b := range append(append([][]byte{head}, parts...), tail) {
		if len(b) == 0 {
			continue
		}
		if _, err := f.out.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// concat joins parts into one new slice.
func concat(parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]byte, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// Close makes later Sends fail: nothing reaches a client once its session
// is over.
func (f *Flow) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
}

// Drain waits until every request asked is answered; it reports false if
// timeout or ctx ended first.
func (f *Flow) Drain(ctx context.Context, timeout time.Duration) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		f.mu.Lock()
		left, changed := len(f.asked), f.changed
		f.mu.Unlock()
		if left == 0 {
			return true
		}
		select {
		case <-changed:
		case <-deadline.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}
