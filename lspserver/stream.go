package lspserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	segjson "github.com/segmentio/encoding/json"
	"github.com/toolhost/toolhost/internal/jsonsyntax"
	"go.lsp.dev/jsonrpc2"
)

// maxHeaderLine bounds one header line; a longer line is garbage and is
// skipped up to its newline without being kept.
const maxHeaderLine = 8 << 10

// Stream is the LSP base protocol (Content-Length framed JSON-RPC) as a
// jsonrpc2.Stream that survives bad input. jsonrpc2's own stream ends the
// connection on the first bad header or body and allocates whatever
// Content-Length claims; this one answers such faults with a JSON-RPC error
// and keeps reading:
//
//   - header names are case-insensitive; unknown headers are ignored;
//   - a line that is not a header is reported (-32700) and skipped;
//   - a Content-Length over the limit is refused without allocating it
//     (-32600 naming the limit and the setting), and the body is discarded in
//     small chunks — unless a new Content-Length header turns up outside any
//     JSON string in it, which no JSON body can contain, so a lying length
//     does not swallow the messages after it;
//   - a body that is not JSON gets -32700, a JSON value that is not a
//     JSON-RPC message -32600.
//
// Writes are serialised so each message goes out whole.
type Stream struct {
	in     *bufio.Reader
	closer io.Closer
	log    *slog.Logger
	// limit is the largest Content-Length accepted, in bytes.
	limit atomic.Int64
	// closed is set once Close has run; writes after it fail.
	closed atomic.Bool

	// held and staged carry params beside jsonrpc2's messages (params.go).
	held   heldParams
	staged stagedParams

	writeMu sync.Mutex
	// out is written only under writeMu.
	out io.Writer
}

// NewStream frames messages on in and out. limit caps a message's
// Content-Length (0 means the default, 64 MiB). If in is an io.Closer,
// Close closes it so a blocked read returns.
func NewStream(in io.Reader, out io.Writer, limit int64, log *slog.Logger) *Stream {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Stream{in: bufio.NewReaderSize(in, 64<<10), out: out, log: log}
	if c, ok := in.(io.Closer); ok {
		s.closer = c
	}
	s.SetLimit(limit)
	return s
}

// DefaultMaxMessageBytes is the default cap of a message's Content-Length.
const DefaultMaxMessageBytes = 64 << 20

// SetLimit changes the cap of a message's Content-Length (0: the default).
func (s *Stream) SetLimit(limit int64) {
	if limit <= 0 {
		limit = DefaultMaxMessageBytes
	}
	s.limit.Store(limit)
}

// Read returns the next well-formed message. Faults in the input are
// answered on the output and skipped; the error is non-nil only when the
// input ends or fails.
func (s *Stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			return nil, total, err
		}
		fr, err := s.readFrame(false)
		total += fr.n
		if err != nil {
			return nil, total, err
		}
		switch {
		case fr.fault != nil:
			s.writeFault(nil, fr.fault)
			continue
		case fr.body == nil:
			continue
		}
		msg, params, fault := decodeMessage(fr.body)
		if fault != nil {
			if fault.id != nil || !fault.isResponse {
				s.writeFault(fault.id, fault.err)
			} else {
				s.log.Warn("dropped a malformed response from the client", "err", fault.err.Message)
			}
			continue
		}
		s.held.hold(msg, params)
		return msg, total, nil
	}
}

// frame is one read attempt: a body, a fault to answer, or nothing (blank
// lines between messages).
type frame struct {
	body  []byte
	fault *jsonrpc2.Error
	n     int64
}

// contentLengthName is matched case-insensitively.
const contentLengthName = "content-length:"

// readFrame reads one header block and its body. If resumed, a
// Content-Length name has already been consumed and the first line holds its
// value. A discard of an oversized body that stops at the next message's
// header resumes there in the same loop, so a stream of oversized headers,
// each cut short by the next, costs constant memory and stack.
func (s *Stream) readFrame(resumed bool) (frame, error) {
	var total int64
	for {
		fr, resync, err := s.readOneFrame(resumed)
		total += fr.n
		fr.n = total
		if err != nil || !resync {
			return fr, err
		}
		resumed = true
	}
}

// readOneFrame is one step of readFrame; resync reports that it stopped
// just past a "Content-Length:" name inside an oversized body.
func (s *Stream) readOneFrame(resumed bool) (fr frame, resync bool, err error) {
	length := int64(-1)
	var garbage []string
	var lengthErr string
	sawHeader := false
	// prefix restores the header name the discard of an oversized body
	// consumed.
	prefix := ""
	if resumed {
		prefix = "Content-Length:"
	}
	for {
		line, n, err := s.readLine()
		fr.n += n
		if err != nil {
			if errors.Is(err, io.EOF) && n == 0 && !sawHeader && prefix == "" {
				return fr, false, io.EOF
			}
			return fr, false, fmt.Errorf("reading a message header: %w", err)
		}
		line, prefix = prefix+strings.TrimRight(line, "\r\n"), ""
		if strings.TrimSpace(line) == "" {
			if !sawHeader && len(garbage) == 0 {
				// Stray blank lines between messages are harmless.
				continue
			}
			break
		}
		// A Content-Length inside a line means the text before it was cut
		// short: a body sent without a trailing newline, or a header line
		// interrupted ("Content-Len" and then the next message). The next
		// message starts at the header; what comes before is reported.
		var name, value string
		ok := false
		if i := indexContentLength(line); i > 0 {
			garbage = append(garbage, line[:i])
			name, value, ok = splitHeader(line[i:])
		} else {
			name, value, ok = splitHeader(line)
		}
		if !ok {
			garbage = append(garbage, line)
			continue
		}
		sawHeader = true
		if strings.EqualFold(name, "Content-Length") {
			v, perr := strconv.ParseInt(value, 10, 64)
			if perr != nil || v < 0 {
				lengthErr = fmt.Sprintf("invalid Content-Length %q: it must be a non-negative byte count", value)
				continue
			}
			length = v
		}
	}
	switch {
	case lengthErr != "":
		fr.fault = jsonrpc2.NewError(jsonrpc2.ParseError, lengthErr+"; the message was skipped")
		return fr, false, nil
	case length < 0:
		msg := "a message had no Content-Length header; each message needs \"Content-Length: N\" followed by an empty line"
		if len(garbage) > 0 {
			msg = fmt.Sprintf("unreadable message header %q; %s", truncate(garbage[0], 80), msg)
		}
		fr.fault = jsonrpc2.NewError(jsonrpc2.ParseError, msg)
		return fr, false, nil
	case len(garbage) > 0:
		// The framing is intact, so the message itself is still read; the
		// stray text before it is reported.
		s.writeFault(nil, jsonrpc2.NewError(jsonrpc2.ParseError,
			fmt.Sprintf("skipped text that is not a message header: %q", truncate(garbage[0], 80))))
	}
	if limit := s.limit.Load(); length > limit {
		fr.fault = jsonrpc2.NewError(jsonrpc2.InvalidRequest, fmt.Sprintf(
			"message of %d bytes exceeds the limit of %d bytes (setting server.maxMessageBytes); it was discarded",
			length, limit))
		// Answer first so the client learns of it at once, then discard.
		s.writeFault(nil, fr.fault)
		fr.fault = nil
		n, resynced, err := s.discard(length)
		fr.n += n
		if err != nil {
			return fr, false, fmt.Errorf("discarding an oversized message: %w", err)
		}
		// On resync the discard stopped just past a "Content-Length:"
		// name: the next message starts there.
		return fr, resynced, nil
	}
	body := make([]byte, length)
	n, err := io.ReadFull(s.in, body)
	fr.n += int64(n)
	if err != nil {
		return fr, false, fmt.Errorf("reading a message body: %w", err)
	}
	fr.body = body
	return fr, false, nil
}

// indexContentLength is the byte offset of the first "Content-Length:" in
// line, in any ASCII case, or -1. It compares bytes: lowering the whole line
// would turn each invalid UTF-8 byte into a three-byte replacement rune and
// the offset would no longer point into line.
func indexContentLength(line string) int {
	for i := 0; i+len(contentLengthName) <= len(line); i++ {
		match := true
		for j := 0; j < len(contentLengthName); j++ {
			c := line[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != contentLengthName[j] {
				match = false
				break
			}
		}
		if match {
			return i
		}
	}
	return -1
}

// splitHeader splits "Name: value"; the name must be an HTTP token.
func splitHeader(line string) (name, value string, ok bool) {
	colon := strings.IndexByte(line, ':')
	if colon <= 0 {
		return "", "", false
	}
	name = line[:colon]
	for _, r := range name {
		if !(r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return "", "", false
		}
	}
	return name, strings.TrimSpace(line[colon+1:]), true
}

// readLine reads up to and including '\n'. A line longer than maxHeaderLine
// is consumed but only its beginning is returned.
func (s *Stream) readLine() (string, int64, error) {
	var kept []byte
	var n int64
	for {
		chunk, err := s.in.ReadSlice('\n')
		n += int64(len(chunk))
		if len(kept) < maxHeaderLine {
			kept = append(kept, chunk[:min(len(chunk), maxHeaderLine-len(kept))]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && (len(kept) == 0 || !errors.Is(err, io.EOF)) {
			return string(kept), n, err
		}
		if err != nil {
			// A last line without newline: a fault the next read reports as EOF.
			return string(kept), n, io.ErrUnexpectedEOF
		}
		return string(kept), n, nil
	}
}

// discard skips length bytes of body through the reader's buffer, never
// holding more than the buffer. It stops early, reporting resync, when it
// meets "Content-Length:" outside a JSON string: no JSON body contains that,
// so the claimed length was a lie and a new message begins there.
func (s *Stream) discard(length int64) (n int64, resync bool, err error) {
	var sc resyncScanner
	for n < length {
		if _, err := s.in.Peek(1); err != nil {
			return n, false, err
		}
		avail := s.in.Buffered()
		if rest := length - n; int64(avail) > rest {
			avail = int(rest)
		}
		buf, _ := s.in.Peek(avail)
		if i := sc.scan(buf); i >= 0 {
			d, _ := s.in.Discard(i)
			return n + int64(d), true, nil
		}
		d, err := s.in.Discard(avail)
		n += int64(d)
		if err != nil {
			return n, false, err
		}
	}
	return n, false, nil
}

// resyncScanner finds "Content-Length:" (any case) outside JSON strings,
// across chunk boundaries.
type resyncScanner struct {
	inString, escaped bool
	matched           int
}

// scan returns the index just past the colon of a match in buf, or -1.
func (r *resyncScanner) scan(buf []byte) int {
	for i, c := range buf {
		if r.inString {
			switch {
			case r.escaped:
				r.escaped = false
			case c == '\\':
				r.escaped = true
			case c == '"':
				r.inString = false
			}
			continue
		}
		if c == '"' {
			r.inString, r.matched = true, 0
			continue
		}
		lc := c
		if lc >= 'A' && lc <= 'Z' {
			lc += 'a' - 'A'
		}
		switch {
		case lc == contentLengthName[r.matched]:
			r.matched++
		case lc == contentLengthName[0]:
			r.matched = 1
		default:
			r.matched = 0
		}
		if r.matched == len(contentLengthName) {
			return i + 1
		}
	}
	return -1
}

// messageFault is why a body is not a usable message.
type messageFault struct {
	// id is the request's id when it could be read (raw JSON).
	id  json.RawMessage
	err *jsonrpc2.Error
	// isResponse marks a message shaped like a response: such a message is
	// never answered, so two peers cannot bounce errors forever.
	isResponse bool
}

// envelope is a message as read in one pass: enough to classify a fault,
// and the params, kept as they are.
type envelope struct {
	Version json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// decodeMessage decodes a body into a jsonrpc2 message or explains why not.
// A request's params are returned beside the message, not inside it
// (see heldParams): the message is decoded from the envelope without them.
func decodeMessage(body []byte) (jsonrpc2.Message, json.RawMessage, *messageFault) {
	body = bytes.TrimSpace(body)
	// One pass checks the syntax, reads the envelope and finds the params,
	// with the parser jsonrpc2 decodes with: a message of megabytes (a
	// Write's content) is not scanned once to validate and again to
	// classify. Only a message that fails is looked at again, to say why.
	var env envelope
	if rest, err := segjson.Parse(body, &env, segjson.ZeroCopy); err != nil || len(rest) > 0 {
		if !json.Valid(body) {
			return nil, nil, &messageFault{err: jsonrpc2.NewError(jsonrpc2.ParseError,
				"the message body is not valid JSON: "+jsonsyntax.Detail(body))}
		}
		return nil, nil, &messageFault{err: jsonrpc2.NewError(jsonrpc2.InvalidRequest,
			"a JSON-RPC message must be a JSON object (batches are not supported)")}
	}
	isResponse := env.Method == nil && (env.Result != nil || env.Error != nil)
	id := validID(env.ID)
	if env.Method != nil && *env.Method == "" {
		return nil, nil, &messageFault{id: id, err: jsonrpc2.NewError(jsonrpc2.InvalidRequest, `"method" must be a non-empty string`)}
	}
	if env.Method == nil && !isResponse {
		return nil, nil, &messageFault{id: id, err: jsonrpc2.NewError(jsonrpc2.InvalidRequest,
			`a JSON-RPC message needs "method" (a request or notification) or "result"/"error" (a response)`)}
	}
	if len(env.ID) > 0 && string(env.ID) != "null" && id == nil {
		return nil, nil, &messageFault{isResponse: isResponse, err: jsonrpc2.NewError(jsonrpc2.InvalidRequest,
			`"id" must be a string or an integer that fits in 32 bits`)}
	}
	var params json.RawMessage
	if env.Method != nil {
		// The params stay in body: the message is decoded from its
		// envelope alone, so jsonrpc2 neither copies them nor parses them
		// again.
		if len(env.Params) > 0 && string(env.Params) != "null" {
			params = env.Params
		}
		body = requestEnvelope(env.Version, env.ID, *env.Method)
	}
	msg, err := jsonrpc2.DecodeMessage(body)
	if err != nil {
		return nil, nil, &messageFault{id: id, isResponse: isResponse, err: jsonrpc2.NewError(jsonrpc2.InvalidRequest,
			"invalid JSON-RPC message: "+err.Error())}
	}
	return msg, params, nil
}

// requestEnvelope is a request without its params: its version tag and id
// as sent, and its method.
func requestEnvelope(version, id json.RawMessage, method string) []byte {
	m, _ := json.Marshal(method) // a string always encodes
	b := make([]byte, 0, len(version)+len(id)+len(m)+32)
	b = append(b, '{')
	if len(version) > 0 {
		b = append(b, `"jsonrpc":`...)
		b = append(b, version...)
		b = append(b, ',')
	}
	if len(id) > 0 {
		b = append(b, `"id":`...)
		b = append(b, id...)
		b = append(b, ',')
	}
	b = append(b, `"method":`...)
	b = append(b, m...)
	return append(b, '}')
}

// validID returns raw if it is an id jsonrpc2 can carry (a string or an
// int32), else nil.
func validID(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return raw
	}
	var n int32
	if json.Unmarshal(raw, &n) == nil {
		return raw
	}
	return nil
}

// faultResponse is an error response whose id may be null, which
// jsonrpc2.Response cannot express.
type faultResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   *jsonrpc2.Error `json:"error"`
}

// writeFault answers a fault in the input; id nil is sent as null.
func (s *Stream) writeFault(id json.RawMessage, e *jsonrpc2.Error) {
	if id == nil {
		id = json.RawMessage("null")
	}
	s.log.Warn("bad message from the client", "code", e.Code, "err", e.Message)
	data, err := json.Marshal(faultResponse{JSONRPC: "2.0", ID: id, Error: e})
	if err != nil {
		return
	}
	if _, err := s.writeFrame(data); err != nil {
		s.log.Debug("could not answer a bad message", "err", err)
	}
}

// errStreamClosed is returned by writes after Close.
var errStreamClosed = errors.New("the connection is closed")

// Write sends one message.
func (s *Stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	// A successful response is framed from its result as it is: the
	// result was encoded once already (jsonrpc2.NewResponse), and the
	// message's own MarshalJSON would compact and HTML-escape all of it again.
	if r, ok := msg.(*jsonrpc2.Response); ok && r.Err() == nil && len(r.Result()) > 0 {
		rid := r.ID()
		id, err := rid.MarshalJSON()
		if err != nil {
			return 0, fmt.Errorf("encoding a response id: %w", err)
		}
		data := make([]byte, 0, len(r.Result())+len(id)+40)
		data = append(data, `{"jsonrpc":"2.0","result":`...)
		data = append(data, r.Result()...)
		data = append(data, `,"id":`...)
		data = append(data, id...)
		data = append(data, '}')
		return s.writeFrame(data)
	}
	// A request to the client (workspace/applyEdit with a file's content)
	// likewise: its params were encoded by jsonrpc2.NewCall already.
	if c, ok := msg.(*jsonrpc2.Call); ok && len(c.Params()) > 0 {
		params := s.staged.lookup(c.Params())
		cid := c.ID()
		id, err := cid.MarshalJSON()
		if err != nil {
			return 0, fmt.Errorf("encoding a request id: %w", err)
		}
		method, err := json.Marshal(c.Method())
		if err != nil {
			return 0, fmt.Errorf("encoding a request method: %w", err)
		}
		data := make([]byte, 0, len(params)+len(id)+len(method)+50)
		data = append(data, `{"jsonrpc":"2.0","id":`...)
		data = append(data, id...)
		data = append(data, `,"method":`...)
		data = append(data, method...)
		data = append(data, `,"params":`...)
		data = append(data, params...)
		data = append(data, '}')
		return s.writeFrame(data)
	}
	// jsonrpc2's messages encode themselves; calling that directly spares
	// encoding/json a second pass over the output to validate it.
	var data []byte
	var err error
	if m, ok := msg.(json.Marshaler); ok {
		data, err = m.MarshalJSON()
	} else {
		data, err = json.Marshal(msg)
	}
	if err != nil {
		return 0, fmt.Errorf("encoding a message: %w", err)
	}
	return s.writeFrame(data)
}

// writeFrame writes header and body as one write, under the write lock.
func (s *Stream) writeFrame(body []byte) (int64, error) {
	frame := make([]byte, 0, len(body)+32)
	frame = append(frame, "Content-Length: "...)
	frame = strconv.AppendInt(frame, int64(len(body)), 10)
	frame = append(frame, "\r\n\r\n"...)
	frame = append(frame, body...)
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if s.closed.Load() {
		return 0, errStreamClosed
	}
	n, err := s.out.Write(frame)
	return int64(n), err
}

// Close stops writes and closes the input when it can be closed, which ends
// a blocked Read.
func (s *Stream) Close() error {
	s.closed.Store(true)
	if s.closer != nil {
		return s.closer.Close()
	}
	return nil
}

// truncate cuts s to at most n bytes, on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
