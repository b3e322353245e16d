package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/toolhost/toolhost/internal/jsonsyntax"
	"github.com/toolhost/toolhost/settings"
)

// JSON-RPC error codes of faults in the input.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// lineGuard stands between the client's input and the SDK's stdio
// transport. The SDK ends the whole session on the first line it cannot
// decode (not JSON, not a JSON-RPC message, or longer than its cap), and a
// client's single bad line would take every later call with it. The guard
// answers such a line with a JSON-RPC error, as JSON-RPC asks (id null
// when the line has no usable id), and passes only lines the SDK decodes.
// Batches are passed whole when the protocol version allows them
// (2025-03-26 and before) and each element decodes, so the SDK answers
// them as batches; from 2025-06-18 on the SDK would end the session on
// one, so the guard refuses it.
//
// The guard also notes the requests it passes (the writer crosses off
// their answers), so that the end of the input, which ends the SDK's
// session at once, is passed on only once they are answered.
type lineGuard struct {
	in  *bufio.Reader
	out *lockedWriter
	max int
	log *slog.Logger
	// pending is what is left to hand the SDK of the current good line.
	pending []byte
	// version is the protocol version the initialize request negotiates,
	// by the SDK's rule; empty until one passed.
	version string
	// asked holds the requests passed to the SDK and not answered yet.
	asked *unanswered
	// drain is how long the end of the input waits for their answers.
	drain time.Duration
	// inFlight caps the unanswered requests while the client does not read
	// (see waitForRoom); full, when set, is called when the cap is hit.
	inFlight int
	full     func()
}

// maxInFlight is how many requests may wait for their answers to be
// written while the client does not read them: past it, the guard reads no
// further input until one is written, so that a client sending requests
// without ever reading answers meets backpressure (its own writes block)
// instead of filling the server's memory with results. A client that reads
// its answers is never held, however many calls it has running.
const maxInFlight = 64

// newLineGuard guards in; maxBytes caps a line (0: the default of the
// server.maxMessageBytes setting).
func newLineGuard(in io.Reader, out *lockedWriter, maxBytes int, log *slog.Logger) *lineGuard {
	if maxBytes <= 0 {
		maxBytes = int(settings.Defaults().Server.MaxMessageBytes)
	}
	return &lineGuard{in: bufio.NewReaderSize(in, 64<<10), out: out, max: maxBytes, log: log, asked: out.asked, drain: drainTimeout, inFlight: maxInFlight}
}

// Read gives the SDK the input's good lines, newline-terminated.
func (g *lineGuard) Read(p []byte) (int, error) {
	for len(g.pending) == 0 {
		g.asked.waitForRoom(g.inFlight, g.full)
		line, tooLong, err := g.nextLine()
		switch {
		case tooLong:
			g.reject(nil, codeInvalidRequest, fmt.Sprintf("the message is longer than %d bytes and was skipped; send smaller messages (for large files, write them in parts), or start toolhost mcp with a larger -max-message-bytes (or server.maxMessageBytes)", g.max))
		case len(bytes.TrimSpace(line)) > 0:
			if id, code, msg := g.check(line); code != 0 {
				g.reject(id, code, msg)
			} else {
				if line[len(line)-1] != '\n' {
					line = append(line, '\n')
				}
				g.pending = line
			}
		}
		if err != nil && len(g.pending) == 0 {
			if errors.Is(err, io.EOF) && !g.asked.wait(g.drain) {
				g.log.Warn("the input ended and some requests were still unanswered after the wait; ending anyway", "wait", g.drain)
			}
			return 0, err
		}
	}
	n := copy(p, g.pending)
	g.pending = g.pending[n:]
	return n, nil
}

// nextLine reads up to and including the next newline (or to the end of
// the input). A line longer than max is read past without being kept and
// reported as tooLong. A long line is gathered in pieces of the reader's
// size and joined once at its end, rather than in one slice grown by
// doubling, which allocates up to twice the cap for a line the cap then
// refuses; a line found too long drops its pieces at once.
func (g *lineGuard) nextLine() (line []byte, tooLong bool, err error) {
	var pieces [][]byte
	size := 0
	for {
		chunk, err := g.in.ReadSlice('\n')
		if !tooLong {
			size += len(chunk)
			switch {
			case size > g.max:
				tooLong, pieces = true, nil
			case pieces == nil && !errors.Is(err, bufio.ErrBufferFull):
				// The common case: the whole line is in the reader's buffer.
				return append([]byte(nil), chunk...), false, err
			default:
				pieces = append(pieces, append([]byte(nil), chunk...))
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			return nil, true, err
		}
		line = make([]byte, 0, size)
		for _, p := range pieces {
			line = append(line, p...)
		}
		return line, false, err
	}
}

// fault is the error answer to a bad line.
type fault struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   faultError      `json:"error"`
}

type faultError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// reject answers a bad line; id nil is sent as null.
func (g *lineGuard) reject(id json.RawMessage, code int, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	g.log.Warn("bad message from the MCP client", "code", code, "err", message)
	data, err := json.Marshal(fault{JSONRPC: "2.0", ID: id, Error: faultError{Code: code, Message: message}})
	if err != nil {
		return
	}
	if _, err := g.out.Write(append(data, '\n')); err != nil {
		g.log.Debug("could not answer a bad message", "err", err)
	}
}

// check reports what is wrong with a line the SDK could not take: a code
// (0 when the line is fine), the message, and the request's id when one
// can be read from it. It notes the protocol version an initialize request
// negotiates.
func (g *lineGuard) check(line []byte) (id json.RawMessage, code int, message string) {
	line = bytes.TrimSpace(line)
	// Unmarshal checks the whole line's syntax before decoding anything, so
	// a syntax error means the line is not JSON at all.
	notJSON := func() (json.RawMessage, int, string) {
		return nil, codeParseError, "the message is not valid JSON: " + jsonsyntax.Detail(line) + "; send one JSON-RPC 2.0 message per line"
	}
	if line[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(line, &batch); err != nil {
			return notJSON()
		}
		if tooDeep(line) {
			return nil, codeInvalidRequest, errTooDeep.Error() + "; the batch was skipped"
		}
		if g.version >= firstVersionWithoutBatches {
			return nil, codeInvalidRequest, fmt.Sprintf("JSON-RPC batches are not part of MCP %s; send one message per line", g.version)
		}
		if len(batch) == 0 {
			return nil, codeInvalidRequest, "an empty batch; send one JSON-RPC 2.0 message per line"
		}
		fieldsOf := make([]map[string]json.RawMessage, len(batch))
		methods := make([]string, len(batch))
		for i, m := range batch {
			f, method, err := decodable(m)
			if err != nil {
				return nil, codeInvalidRequest, fmt.Sprintf("message %d of the batch is not a JSON-RPC 2.0 message (%v); the batch was skipped", i+1, err)
			}
			fieldsOf[i], methods[i] = f, method
		}
		for i := range batch {
			g.track(fieldsOf[i], methods[i])
		}
		return nil, 0, ""
	}
	fields, method, err := decodable(line)
	if errors.Is(err, errNotJSON) {
		return notJSON()
	}
	if err != nil {
		if validID(fields["id"]) {
			id = fields["id"]
		}
		if errors.Is(err, errTooDeep) {
			return id, codeInvalidRequest, "the message was skipped: its " + err.Error()
		}
		return id, codeInvalidRequest, fmt.Sprintf("not a JSON-RPC 2.0 message (%v); a message needs \"jsonrpc\": \"2.0\" and a \"method\" (with an \"id\" for a request) or a \"result\"/\"error\" with the \"id\" it answers", err)
	}
	g.track(fields, method)
	if method == "initialize" {
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(fields["params"], &p)
		g.version = negotiatedVersion(p.ProtocolVersion)
	}
	return nil, 0, ""
}

// errNotJSON is decodable's error for text that is not JSON.
var errNotJSON = errors.New("not JSON")

// maxDepth is how deep the SDK's decoder lets arrays and objects nest: it
// refuses a deeper message, and the session ends with it.
const maxDepth = 1000

var errTooDeep = fmt.Errorf("arrays and objects nest more than %d levels deep, more than the MCP SDK reads; send a flatter message", maxDepth)

// tooDeep reports whether arrays and objects nest in msg (a JSON value)
// more than maxDepth levels, brackets inside strings aside.
func tooDeep(msg []byte) bool {
	depth, inString, escaped := 0, false, false
	for _, c := range msg {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > maxDepth {
				return true
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return false
}

// decodable reports whether the SDK's jsonrpc.DecodeMessage accepts msg (a
// JSON value), by its rules, and returns msg's fields and method. It
// stands in for DecodeMessage, which costs 20 µs and 64 KB per message
// (TestDecodableAgreesWithTheSDK holds the two together):
//   - "jsonrpc" is exactly "2.0" (keys match case-sensitively);
//   - "id", when present, is a string, a number or null;
//   - "method", when present, is a string or null;
//   - "error", when present, is null or an object whose "code" is an
//     integer and whose "message" is a string;
//   - a message without "method" has a non-null "id";
//   - arrays and objects nest at most maxDepth levels.
func decodable(msg []byte) (fields map[string]json.RawMessage, method string, err error) {
	if err := json.Unmarshal(msg, &fields); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return nil, "", errNotJSON
		}
		return nil, "", errors.New("a message must be a JSON object")
	}
	if tooDeep(msg) {
		return fields, "", errTooDeep
	}
	if v, ok := fields["jsonrpc"]; !ok || string(v) != `"2.0"` {
		var tag string
		if json.Unmarshal(v, &tag) != nil || tag != "2.0" {
			return fields, "", errors.New(`"jsonrpc" must be "2.0"`)
		}
	}
	rawID, hasID := fields["id"]
	if hasID && !validID(rawID) && string(rawID) != "null" {
		return fields, "", errors.New(`"id" must be a string or a number`)
	}
	if hasID && !exactID(rawID) {
		// The SDK carries numeric ids as int64 and would answer 1.5 as 1.
		return fields, "", errors.New(`"id" must be a string or an integer (at most 2^53 in size), so that the answer can repeat it exactly`)
	}
	if rawMethod, ok := fields["method"]; ok {
		if string(rawMethod) != "null" && json.Unmarshal(rawMethod, &method) != nil {
			return fields, "", errors.New(`"method" must be a string`)
		}
	} else if !hasID || string(rawID) == "null" {
		return fields, "", errors.New(`a response needs the "id" of the request it answers`)
	}
	if rawErr, ok := fields["error"]; ok && string(rawErr) != "null" {
		var e struct {
			Code    *int64  `json:"code"`
			Message *string `json:"message"`
		}
		if json.Unmarshal(rawErr, &e) != nil {
			return fields, "", errors.New(`"error" must be an object with an integer "code" and a string "message"`)
		}
	}
	return fields, method, nil
}

// firstVersionWithoutBatches is the MCP version that dropped JSON-RPC
// batches.
const firstVersionWithoutBatches = "2025-06-18"

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

// validID reports whether raw is an id an error response can repeat: a
// string, or a number the SDK can read (a float64).
func validID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	if raw[0] == '"' {
		return true
	}
	var f float64
	return (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') && json.Unmarshal(raw, &f) == nil
}

// exactID reports whether the SDK answers with id exactly as sent: a
// string, null, or an integer written without fraction or exponent that a
// float64 holds exactly.
func exactID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] == '"' || string(raw) == "null" {
		return true
	}
	if bytes.ContainsAny(raw, ".eE") || string(raw) == "-0" {
		return false
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil && n <= 1<<53 && n >= -(1<<53)
}

// track notes a request the SDK will answer, and forgets one the client
// cancelled (MCP answers no cancelled request).
func (g *lineGuard) track(fields map[string]json.RawMessage, method string) {
	switch {
	case method == "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(fields["params"], &p) == nil {
			if key, ok := idKey(p.RequestID); ok {
				g.asked.remove(key)
			}
		}
	case method != "":
		if key, ok := idKey(fields["id"]); ok {
			g.asked.add(key)
		}
	}
}

// drainTimeout bounds how long the end of the input waits for the answers
// to requests already made: a client that closes its input after its last
// request (echo '{...}' | toolhost mcp) still gets the answer, and one that
// closes it to stop the server does not wait long for a slow call.
const drainTimeout = 10 * time.Second

// unanswered is the set of requests passed to the SDK that have no answer
// yet, by idKey.
type unanswered struct {
	mu  sync.Mutex
	ids map[string]struct{}
	// writing counts the writes to the client under way: one that does not
	// end means the client is not reading.
	writing int
	// changed is closed, and replaced, whenever an id leaves ids or a
	// write ends.
	changed chan struct{}
}

// signal wakes the waiters; called with mu held.
func (u *unanswered) signal() {
	close(u.changed)
	u.changed = make(chan struct{})
}

// writeStarted and writeEnded bracket a write to the client; writeEnded
// crosses off the requests it answered.
func (u *unanswered) writeStarted() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.writing++
}

func (u *unanswered) writeEnded(answered []string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.writing--
	for _, key := range answered {
		delete(u.ids, key)
	}
	u.signal()
}

// waitForRoom returns at once unless limit requests are unanswered while a
// write to the client is stuck; then it waits until one of the two ends.
// full, when set, is called once before waiting.
func (u *unanswered) waitForRoom(limit int, full func()) {
	for called := false; ; called = true {
		u.mu.Lock()
		wait, changed := limit > 0 && len(u.ids) >= limit && u.writing > 0, u.changed
		u.mu.Unlock()
		if !wait {
			return
		}
		if !called && full != nil {
			full()
		}
		<-changed
	}
}

func newUnanswered() *unanswered {
	return &unanswered{ids: map[string]struct{}{}, changed: make(chan struct{})}
}

func (u *unanswered) add(key string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.ids[key] = struct{}{}
}

func (u *unanswered) remove(key string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if _, ok := u.ids[key]; ok {
		delete(u.ids, key)
		u.signal()
	}
}

// wait returns true once no request is unanswered, false if timeout
// passed first.
func (u *unanswered) wait(timeout time.Duration) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		u.mu.Lock()
		left, changed := len(u.ids), u.changed
		u.mu.Unlock()
		if left == 0 {
			return true
		}
		select {
		case <-changed:
		case <-deadline.C:
			return false
		}
	}
}

// idKey is a request id as the SDK answers it: a string, or a number,
// which it carries as an int64. Null and other values have no key.
func idKey(raw json.RawMessage) (string, bool) {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	switch v := v.(type) {
	case string:
		return "s:" + v, true
	case float64:
		return "n:" + strconv.FormatInt(int64(v), 10), true
	}
	return "", false
}

// answeredIDs are the ids of the responses in one line the SDK writes:
// one for a response, several for a batch, none for a request or a
// notification. The SDK writes "jsonrpc" and "id" before "result" or
// "error", so a response's result is not decoded to find its id.
func answeredIDs(line []byte) []string {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	if line[0] == '[' {
		var batch []struct {
			ID     json.RawMessage `json:"id"`
			Method *string         `json:"method"`
		}
		_ = json.Unmarshal(line, &batch)
		var keys []string
		for _, m := range batch {
			if key, ok := idKey(m.ID); ok && m.Method == nil {
				keys = append(keys, key)
			}
		}
		return keys
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var id json.RawMessage
	response := false
	for dec.More() && (id == nil || !response) {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		if (tok == "result" || tok == "error") && id != nil {
			// The id came first, as the SDK writes it: the result, which
			// can be megabytes (a large file's content), is not decoded.
			response = true
			break
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil
		}
		switch tok {
		case "method":
			return nil
		case "id":
			id = value
		case "result", "error":
			response = true
		}
	}
	if key, ok := idKey(id); ok && response {
		return []string{key}
	}
	return nil
}

// lockedWriter makes each Write reach the output whole (the SDK writes one
// message per call, and the guard's answers must not land inside one), and
// crosses off the requests each write answers.
type lockedWriter struct {
	mu    sync.Mutex
	w     io.Writer
	asked *unanswered
}

func newLockedWriter(w io.Writer) *lockedWriter {
	return &lockedWriter{w: w, asked: newUnanswered()}
}

// sdkCodeZero is how the SDK writes an error it has no JSON-RPC code for
// (a request before initialize, for one); codeZeroFixed is the same with
// the code JSON-RPC has for it.
var (
	sdkCodeZero   = []byte(`"error":{"code":0,`)
	codeZeroFixed = []byte(`"error":{"code":-32600,`)
)

func (l *lockedWriter) Write(p []byte) (int, error) {
	if bytes.Contains(p, sdkCodeZero) {
		// Only the envelope can hold these bytes unescaped: inside a JSON
		// string the quotes would be escaped.
		fixed := bytes.Replace(p, sdkCodeZero, codeZeroFixed, 1)
		if _, err := l.Write(fixed); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	answered := answeredIDs(p)
	l.asked.writeStarted()
	l.mu.Lock()
	n, err := l.w.Write(p)
	l.mu.Unlock()
	l.asked.writeEnded(answered)
	return n, err
}

func (l *lockedWriter) Close() error { return nil }
