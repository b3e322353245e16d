package lspserver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/toolhost/toolhost/internal/hugemem"
	"github.com/toolhost/toolhost/internal/rpcfault"
)

// maxHeaderLine bounds one header line; a longer line is garbage and is
// skipped up to its newline without being kept.
const maxHeaderLine = 8 << 10

// Stream is the LSP base protocol (Content-Length framed JSON-RPC) that
// survives bad input: faults are answered with a JSON-RPC error and
// reading goes on.
//
//   - header names are case-insensitive; unknown headers are ignored;
//   - a line that is not a header is reported (-32700) and skipped;
//   - a Content-Length over the limit is refused without allocating it
//     (-32600 naming the limit and the setting), and the body is discarded in
//     small chunks — unless a new Content-Length header turns up outside any
//     JSON string in it, which no JSON body can contain, so a lying length
//     does not swallow the messages after it;
//   - a body is decoded, and its faults answered, by rpcfault.
//
// Writes go through an rpcfault.Flow, which sends each message whole and
// holds the reading of a client that does not read its answers.
type Stream struct {
	in     *bufio.Reader
	closer io.Closer
	log    *slog.Logger
	flow   *rpcfault.Flow
	// limit is the largest Content-Length accepted, in bytes.
	limit atomic.Int64
	// last is the body of the message Read returned last (Recycle); only
	// the reading goroutine touches it.
	last []byte
}

// NewStream frames messages on in and out. limit caps a message's
// Content-Length (0 means the default, 64 MiB). Close closes in when that
// ends a blocked read (rpcfault.InputCloser).
func NewStream(in io.Reader, out io.Writer, limit int64, log *slog.Logger) *Stream {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Stream{in: bufio.NewReaderSize(in, 64<<10), log: log, flow: rpcfault.NewFlow(out, frameBody, log)}
	s.flow.Held = flowHeld
	s.closer = rpcfault.InputCloser(in)
	s.SetLimit(limit)
	return s
}

// flowHeld is the Held hook of the streams made from now on (tests).
var flowHeld func()

// DefaultMaxMessageBytes is the default cap of a message's Content-Length.
const DefaultMaxMessageBytes = 64 << 20

// SetLimit changes the cap of a message's Content-Length (0: the default).
func (s *Stream) SetLimit(limit int64) {
	if limit <= 0 {
		limit = DefaultMaxMessageBytes
	}
	s.limit.Store(limit)
}

// Read returns the next well-formed message, once the client has room for
// another answer (rpcfault.Flow), and the bytes it read for it. Faults in
// the input are answered on the output and skipped; the error is non-nil
// only when the input ends or fails, or ctx does.
func (s *Stream) Read(ctx context.Context) (jsonrpc.Message, int64, error) {
	var total int64
	for {
		if err := s.flow.Admit(ctx); err != nil {
			return nil, total, err
		}
		body, n, err := s.readFrame()
		total += n
		if err != nil {
			return nil, total, err
		}
		if body == nil {
			continue
		}
		if msg := s.flow.Receive(body, faultMessage); msg != nil {
			s.last = body
			return msg, total, nil
		}
		recycleBody(body)
	}
}

// faultMessage words a fault in a message's body.
func faultMessage(f *rpcfault.Fault) string {
	if f.Code == rpcfault.CodeParseError {
		return "the message body is " + f.Reason
	}
	return f.Reason
}

// contentLengthName is matched case-insensitively.
const contentLengthName = "content-length:"

// readFrame reads one header block and its body, or answers a fault in it
// (body nil). A discard of an oversized body that stops at the next
// message's header resumes there in the same loop, so a stream of oversized
// headers, each cut short by the next, costs constant memory and stack.
func (s *Stream) readFrame() (body []byte, n int64, err error) {
	// prefix restores the header name the discard of an oversized body
	// consumed.
	for prefix := ""; ; prefix = "Content-Length:" {
		length, lengthErr := int64(-1), ""
		var garbage []string
		sawHeader := false
		for {
			line, read, err := s.readLine()
			n += read
			if err != nil {
				if errors.Is(err, io.EOF) && read == 0 && !sawHeader && prefix == "" {
					return nil, n, io.EOF
				}
				return nil, n, fmt.Errorf("reading a message header: %w", err)
			}
			line, prefix = prefix+strings.TrimRight(line, "\r\n"), ""
			if strings.TrimSpace(line) == "" {
				if !sawHeader && len(garbage) == 0 {
					// Stray blank lines between messages are harmless.
					continue
				}
				break
			}
			// A Content-Length inside a line means the text before it was
			// cut short: a body sent without a trailing newline, or a header
			// line interrupted ("Content-Len" and then the next message).
			// The next message starts at the header; what comes before is
			// reported.
			if i := strings.Index(asciiLower(line), contentLengthName); i > 0 {
				garbage, line = append(garbage, line[:i]), line[i:]
			}
			name, value, ok := splitHeader(line)
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
			s.flow.Refuse(parseFault(), lengthErr+"; the message was skipped")
			return nil, n, nil
		case length < 0:
			msg := "a message had no Content-Length header; each message needs \"Content-Length: N\" followed by an empty line"
			if len(garbage) > 0 {
				msg = fmt.Sprintf("unreadable message header %q; %s", truncate(garbage[0], 80), msg)
			}
			s.flow.Refuse(parseFault(), msg)
			return nil, n, nil
		case len(garbage) > 0:
			// The framing is intact, so the message itself is still read;
			// the stray text before it is reported.
			s.flow.Refuse(parseFault(), fmt.Sprintf("skipped text that is not a message header: %q", truncate(garbage[0], 80)))
		}
		if limit := s.limit.Load(); length > limit {
			// Answer first so the client learns of it at once, then discard.
			s.flow.Refuse(&rpcfault.Fault{Code: rpcfault.CodeInvalidRequest}, fmt.Sprintf(
				"message of %d bytes exceeds the limit of %d bytes (setting server.maxMessageBytes); it was discarded",
				length, limit))
			skipped, resynced, err := s.discard(length)
			n += skipped
			if err != nil {
				return nil, n, fmt.Errorf("discarding an oversized message: %w", err)
			}
			if !resynced {
				return nil, n, nil
			}
			// The discard stopped just past a "Content-Length:" name: the
			// next message starts there.
			continue
		}
		body = bodyBuffer(int(length))
		read, err := io.ReadFull(s.in, body)
		n += int64(read)
		if err != nil {
			return nil, n, fmt.Errorf("reading a message body: %w", err)
		}
		return body, n, nil
	}
}

// Recycle hands the body of the message Read returned last back for reuse.
// Call it, from the goroutine that reads, only when nothing holds a view of
// that message any more: after a notification was handled in the read loop
// by handlers that copy what they keep.
func (s *Stream) Recycle() {
	recycleBody(s.last)
	s.last = nil
}

// recycleMin is the size from which message buffers are reused: a
// document's whole text (didOpen, didChange) or a Write's applyEdit is
// megabytes, and on these machines each page touched for the first time
// costs tens of microseconds, more than the work on it.
const recycleMin = 1 << 20

// recycleMax is the largest buffer kept for reuse: one buffer stays with
// the process while it is idle.
const recycleMax = 16 << 20

// spare is one buffer of recycleMin to recycleMax bytes no message uses any
// more. One is enough: the large messages of a Write through the editor
// come one after another (the call, the applyEdit, the didChange). Not a
// sync.Pool: each collection empties a pool, and a Write of megabytes runs
// several.
var spare atomic.Pointer[[]byte]

// bodyBuffer is a buffer of n bytes, the spare one when n is large and it
// is big enough.
func bodyBuffer(n int) []byte {
	if n >= recycleMin {
		if p := spare.Swap(nil); p != nil {
			if cap(*p) >= n {
				return (*p)[:n]
			}
			spare.CompareAndSwap(nil, p)
		}
	}
	return hugemem.Bytes(n)
}

// recycleBody keeps b as the spare buffer once nothing uses it; a small or
// very large buffer is left to the collector.
func recycleBody(b []byte) {
	if c := cap(b); c >= recycleMin && c <= recycleMax {
		spare.Store(&b)
	}
}

// asciiLower lowers the ASCII letters of s, byte for byte: strings.ToLower
// would turn each invalid UTF-8 byte into a three-byte replacement rune, and
// an offset in its result would no longer point into s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
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
	line, n, err := rpcfault.ReadLine(s.in, maxHeaderLine)
	if errors.Is(err, io.EOF) && n > 0 {
		// A last line without newline: a fault the next read reports as EOF.
		err = io.ErrUnexpectedEOF
	}
	return string(line), int64(n), err
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

// Write sends one message; a response crosses off the request it answers.
func (s *Stream) Write(msg jsonrpc.Message) error { return s.flow.Send(msg) }

// frameBody appends the Content-Length header of a body of size bytes.
func frameBody(dst []byte, size int) (head, tail []byte) {
	dst = strconv.AppendInt(append(dst, "Content-Length: "...), int64(size), 10)
	return append(dst, "\r\n\r\n"...), nil
}

// parseFault is a framing fault: -32700 with id null.
func parseFault() *rpcfault.Fault { return &rpcfault.Fault{Code: rpcfault.CodeParseError} }

// Close stops writes and closes the input when it can be closed, which ends
// a blocked Read.
func (s *Stream) Close() error {
	s.flow.Close()
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
