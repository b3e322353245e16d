// Package script replays scripted sessions against a JSON-RPC server, with
// LSP framing (editor sessions) or newline-delimited JSON (MCP sessions,
// Options.Lines). A session is a txtar archive: files under ws/ make the
// workspace, and the file "transcript" is the conversation, one message a
// line:
//
//	# a comment
//	-> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{...}}
//	<- {"jsonrpc":"2.0","id":1,"result":{...}}
//	=> "Content-Length: 2147483648\r\n\r\n{}"
//	== file src/main.go want/main.go
//	== nofile notes.txt
//	eof
//	exit 0
//
// "->" sends the rest of the line as one message (framed, sent as is, so it
// may be invalid JSON). "=>" sends raw bytes written as a Go string literal
// (bad headers, lying lengths). "<-" expects a message from the server; a run
// of "<-" lines matches in any order, since concurrent requests may finish
// in any order. "<~" expects a message that contains the one given: objects
// may have more keys, arrays more elements (for long lists such as
// listTools, so a new tool does not break every session). A server request ("<-" with a method and an id) is answered
// by the script's next "->" line. "== file" checks a workspace file against
// an archive file, "== nofile" that a file does not exist, and "exit N" the
// server's result (0: nil error, 1: an error). "eof" closes the input: the
// server sees the client's end, and the steps after it match what it still
// sends.
//
// $WORK in a line stands for the workspace root. Server messages are
// normalised before matching: the root becomes $WORK, every "durationMs"
// becomes "*", and each time in the message of a progress end becomes
// "<time>" ("done in <time>"). An expected "*"
// matches any value. With Options.Update, each expectation the server's
// message no longer matches is rewritten as a "<-" line of that message.
package script

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/tools/txtar"
)

// ServeFunc runs a server on in and out until it is told to exit or in ends.
type ServeFunc func(ctx context.Context, in io.Reader, out io.Writer) error

// Direction says which way a message went.
type Direction int

const (
	// ClientToServer is a message the script sent.
	ClientToServer Direction = iota
	// ServerToClient is a message the server sent.
	ServerToClient
)

// Options configure Replay.
type Options struct {
	// Dir is where the workspace is created (Dir/ws is the root).
	Dir string
	// Lines frames messages as newline-delimited JSON (MCP's stdio
	// transport) instead of LSP's Content-Length headers.
	Lines bool
	// Update rewrites the expected messages with the server's (normalised)
	// messages instead of comparing them.
	Update bool
	// Observe, when set, sees every message with the root shown as $WORK.
	Observe func(dir Direction, msg []byte)
}

// Result is the outcome of a replay.
type Result struct {
	// Failures describe every mismatch; empty when the session passed.
	Failures []string
	// Archive is the session with expectations rewritten (Update only).
	Archive []byte
	// ServeErr is what the server returned.
	ServeErr error
}

// step is one line of a transcript.
type step struct {
	line int
	kind string // "->", "=>", "<-", "<~", "==", "exit", "" (comment or blank)
	text string
}

// Session is a parsed session archive.
type Session struct {
	archive *txtar.Archive
	steps   []step
}

// transcriptName is the archive file holding the conversation.
const transcriptName = "transcript"

// Parse reads a session archive.
func Parse(data []byte) (*Session, error) {
	a := txtar.Parse(data)
	var transcript []byte
	found := false
	for _, f := range a.Files {
		if f.Name == transcriptName {
			transcript, found = f.Data, true
		}
	}
	if !found {
		return nil, errors.New(`the archive has no "transcript" file`)
	}
	s := &Session{archive: a}
	for i, raw := range strings.Split(strings.TrimSuffix(string(transcript), "\n"), "\n") {
		st := step{line: i + 1, text: raw}
		trimmed := strings.TrimSpace(raw)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
		case strings.HasPrefix(trimmed, "->"), strings.HasPrefix(trimmed, "=>"),
			strings.HasPrefix(trimmed, "<-"), strings.HasPrefix(trimmed, "<~"), strings.HasPrefix(trimmed, "=="):
			st.kind, st.text = trimmed[:2], strings.TrimSpace(trimmed[2:])
		case strings.HasPrefix(trimmed, "exit "):
			st.kind, st.text = "exit", strings.TrimSpace(strings.TrimPrefix(trimmed, "exit "))
		case trimmed == "eof":
			st.kind = "eof"
		default:
			return nil, fmt.Errorf("transcript line %d: %q is not a step (->, =>, <-, <~, ==, eof, exit, #)", i+1, raw)
		}
		s.steps = append(s.steps, st)
	}
	return s, nil
}

// Replay runs the session against serve.
func (s *Session) Replay(ctx context.Context, serve ServeFunc, opts Options) (*Result, error) {
	root, err := s.extract(opts.Dir)
	if err != nil {
		return nil, err
	}
	r := &replayer{session: s, root: root, opts: opts, res: &Result{}}
	return r.run(ctx, serve)
}

// extract writes the ws/ files under dir/ws with increasing modification
// times in archive order, so "newest first" listings are stable, and the
// xdg/ files (the user's own config folder, outside the workspace) under
// dir/xdg.
func (s *Session) extract(dir string) (string, error) {
	root := filepath.Join(dir, "ws")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	base := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	for i, f := range s.archive.Files {
		under := root
		rel, ok := strings.CutPrefix(f.Name, "ws/")
		if !ok {
			if rel, ok = strings.CutPrefix(f.Name, "xdg/"); !ok {
				continue
			}
			under = filepath.Join(dir, "xdg")
		}
		p := filepath.Join(under, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return "", err
		}
		mt := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(p, mt, mt); err != nil {
			return "", err
		}
	}
	return root, nil
}

// replayer is one run of a session.
type replayer struct {
	session *Session
	root    string
	opts    Options
	res     *Result
	// msgs are the server's messages, normalised, in arrival order.
	msgs chan []byte
	// updated holds the rewritten expectation of each "<-" step (Update).
	updated map[int]string
}

func (r *replayer) run(ctx context.Context, serve ServeFunc) (*Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	clientR, clientW := io.Pipe()
	serverR, serverW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		err := serve(ctx, clientR, serverW)
		_ = serverW.Close()
		_ = clientR.Close()
		served <- err
	}()
	r.msgs = make(chan []byte, 4096)
	go r.read(serverR)
	r.updated = map[int]string{}

	steps := r.session.steps
	stopped := false
	for i := 0; i < len(steps) && !stopped; i++ {
		st := steps[i]
		switch st.kind {
		case "->":
			body := []byte(r.expand(st.text))
			r.observe(ClientToServer, body)
			if err := r.write(clientW, body); err != nil {
				r.fail(st, "sending: %v", err)
				stopped = true
			}
		case "=>":
			raw, err := strconv.Unquote(st.text)
			if err != nil {
				return nil, fmt.Errorf("transcript line %d: => needs a Go string literal: %v", st.line, err)
			}
			r.observe(ClientToServer, []byte(raw))
			if _, err := io.WriteString(clientW, raw); err != nil {
				r.fail(st, "sending: %v", err)
				stopped = true
			}
		case "<-", "<~":
			j := i
			for j < len(steps) && (steps[j].kind == "<-" || steps[j].kind == "<~") {
				j++
			}
			if !r.expectGroup(ctx, steps[i:j]) {
				stopped = true
			}
			i = j - 1
		case "==":
			r.checkFile(st)
		case "eof":
			// The client closes its side; what the server still sends
			// is matched by the steps after it.
			_ = clientW.Close()
		}
	}
	// The script is over: end the input so a server that was not told to
	// exit stops too, then look for messages nobody expected.
	_ = clientW.Close()
	var serveErr error
	select {
	case serveErr = <-served:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	r.res.ServeErr = serveErr
	for msg := range r.msgs {
		if !stopped {
			r.res.Failures = append(r.res.Failures, "unexpected message after the transcript: "+string(msg))
		}
	}
	for _, st := range steps {
		if st.kind != "exit" || stopped {
			continue
		}
		got := "0"
		if serveErr != nil {
			got = "1"
		}
		if st.text != got {
			r.fail(st, "the server ended with %v (exit %s), want exit %s", serveErr, got, st.text)
		}
	}
	if r.opts.Update {
		r.res.Archive = r.rewrite()
	}
	return r.res, nil
}

// write sends one message in the session's framing.
func (r *replayer) write(w io.Writer, body []byte) error {
	if r.opts.Lines {
		_, err := w.Write(append(append([]byte(nil), body...), '\n'))
		return err
	}
	return writeFrame(w, body)
}

// read collects the server's messages until its output ends.
func (r *replayer) read(out io.Reader) {
	br := bufio.NewReader(out)
	defer close(r.msgs)
	for {
		var body []byte
		var err error
		if r.opts.Lines {
			body, err = readLine(br)
		} else {
			body, err = ReadFrame(br)
		}
		if err != nil {
			return
		}
		norm := r.normalise(body)
		r.observe(ServerToClient, norm)
		r.msgs <- norm
	}
}

// expectGroup matches the next len(group) messages against group in any
// order. In Update mode a message that still matches an expectation keeps
// it (with its wildcards); any other takes the place of the first
// expectation left.
func (r *replayer) expectGroup(ctx context.Context, group []step) bool {
	pending := append([]step(nil), group...)
	for range group {
		var msg []byte
		var ok bool
		select {
		case msg, ok = <-r.msgs:
		case <-ctx.Done():
			r.fail(pending[0], "%v while waiting for %s", ctx.Err(), pending[0].text)
			return false
		}
		if !ok {
			r.fail(pending[0], "the server closed its output; expected %s", pending[0].text)
			return false
		}
		var got any
		if err := json.Unmarshal(msg, &got); err != nil {
			r.fail(pending[0], "the server sent invalid JSON: %s", msg)
			return false
		}
		idx := -1
		for k, st := range pending {
			var want any
			if err := json.Unmarshal([]byte(st.text), &want); err != nil {
				if r.opts.Update {
					continue
				}
				r.fail(st, "the expectation is not JSON: %v", err)
				return false
			}
			if match(want, got, st.kind == "<~") {
				idx = k
				break
			}
		}
		if r.opts.Update {
			if idx < 0 {
				r.updated[pending[0].line] = "<- " + string(msg)
				idx = 0
			}
			pending = append(pending[:idx], pending[idx+1:]...)
			continue
		}
		if idx < 0 {
			var wants []string
			for _, st := range pending {
				wants = append(wants, fmt.Sprintf("  line %d: %s %s", st.line, st.kind, st.text))
			}
			r.fail(pending[0], "unexpected message\n got: %s\nwant one of:\n%s", msg, strings.Join(wants, "\n"))
			return false
		}
		pending = append(pending[:idx], pending[idx+1:]...)
	}
	return true
}

// checkFile runs an "== file" or "== nofile" step.
func (r *replayer) checkFile(st step) {
	f := strings.Fields(st.text)
	switch {
	case len(f) == 3 && f[0] == "file":
		got, err := os.ReadFile(filepath.Join(r.root, filepath.FromSlash(f[1])))
		if err != nil {
			r.fail(st, "%v", err)
			return
		}
		var want []byte
		found := false
		for _, af := range r.session.archive.Files {
			if af.Name == f[2] {
				want, found = af.Data, true
			}
		}
		if !found {
			r.fail(st, "the archive has no file %q", f[2])
			return
		}
		if !bytes.Equal(got, want) {
			r.fail(st, "%s differs from %s:\n got: %q\nwant: %q", f[1], f[2], got, want)
		}
	case len(f) == 2 && f[0] == "nofile":
		if _, err := os.Stat(filepath.Join(r.root, filepath.FromSlash(f[1]))); !errors.Is(err, os.ErrNotExist) {
			r.fail(st, "%s exists (or cannot be checked: %v)", f[1], err)
		}
	default:
		r.fail(st, "want \"== file PATH ARCHIVE-FILE\" or \"== nofile PATH\"")
	}
}

func (r *replayer) fail(st step, format string, args ...any) {
	r.res.Failures = append(r.res.Failures, fmt.Sprintf("transcript line %d: %s", st.line, fmt.Sprintf(format, args...)))
}

func (r *replayer) observe(d Direction, msg []byte) {
	if r.opts.Observe != nil {
		r.opts.Observe(d, []byte(r.unroot(string(msg))))
	}
}

// The sessions are written with / paths and file://$WORK URIs; on Windows
// (where make test-windows replays them under Wine) the root is C:\...:
// a sent message gets the root as a JSON string holds it (backslashes
// escaped) and its URI as file:///C:/..., and the server's messages are
// folded back, with \ after $WORK read as /.

// expand replaces file://$WORK with the root's URI and $WORK with the
// root, as the inside of a JSON string (messages hold it in strings).
func (r *replayer) expand(s string) string {
	s = strings.ReplaceAll(s, "file://$WORK", rootURI(r.root))
	return strings.ReplaceAll(s, "$WORK", jsonText(r.root))
}

// rootURI is the file URI of root: file:///C:/x on Windows, file:///x
// elsewhere.
func rootURI(root string) string {
	p := filepath.ToSlash(root)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return "file://" + p
}

// jsonText is s as the inside of a JSON string.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// afterRoot matches $WORK followed by the rest of a Windows path in a
// JSON string (each \ escaped as \\).
var afterRoot = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$WORK((?:\\\\[^\\"\s:*?<>|]+)+)`) })

// unroot replaces the root in a server's message with $WORK: its URI, its
// JSON form, and its plain form, then on Windows reads the separators of
// the paths below it as /.
func (r *replayer) unroot(text string) string {
	text = strings.ReplaceAll(text, rootURI(r.root), "file://$WORK")
	text = strings.ReplaceAll(text, jsonText(r.root), "$WORK")
	text = strings.ReplaceAll(text, r.root, "$WORK")
	if filepath.Separator == '\\' {
		text = afterRoot().ReplaceAllStringFunc(text, func(m string) string {
			return strings.ReplaceAll(m, `\\`, "/")
		})
	}
	return text
}

// normalise rewrites a server message for comparison: the root becomes
// $WORK, and volatile values become "*".
func (r *replayer) normalise(body []byte) []byte {
	text := r.unroot(string(body))
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return []byte(text)
	}
	v = scrub(v)
	if m, ok := v.(map[string]any); ok && m["method"] == "$/progress" {
		if p, ok := m["params"].(map[string]any); ok {
			if val, ok := p["value"].(map[string]any); ok && val["kind"] == "end" {
				if msg, ok := val["message"].(string); ok {
					val["message"] = goDuration().ReplaceAllString(msg, "<time>")
				}
			}
		}
	}
	return marshal(v)
}

// goDuration matches a time as Go prints a time.Duration: "3ms", "1.5s",
// "2m3.004s".
var goDuration = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|us|ms|s|m|h)(\d+(\.\d+)?(ns|µs|us|ms|s|m|h))*\b`)
})

// scrub replaces every durationMs value with "*".
func scrub(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == "durationMs" {
				x[k] = "*"
				continue
			}
			x[k] = scrub(e)
		}
	case []any:
		for i, e := range x {
			x[i] = scrub(e)
		}
	}
	return v
}

// marshal encodes compactly with sorted keys and without HTML escaping.
func marshal(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// match reports whether got matches want exactly, except that a want of
// "*" matches any value; with subset, objects in want may leave out keys
// and arrays in want list a subsequence of got's elements ("<~" lines).
func match(want, got any, subset bool) bool {
	if s, ok := want.(string); ok && s == "*" {
		return true
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || (!subset && len(g) != len(w)) {
			return false
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok || !match(wv, gv, subset) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok {
			return false
		}
		if !subset {
			if len(g) != len(w) {
				return false
			}
			for i := range w {
				if !match(w[i], g[i], false) {
					return false
				}
			}
			return true
		}
		j := 0
		for _, wv := range w {
			for j < len(g) && !match(wv, g[j], true) {
				j++
			}
			if j == len(g) {
				return false
			}
			j++
		}
		return true
	}
	return reflect.DeepEqual(want, got)
}

// rewrite returns the archive with each "<-" line replaced by what the
// server sent.
func (r *replayer) rewrite() []byte {
	a := *r.session.archive
	a.Files = append([]txtar.File(nil), a.Files...)
	for i, f := range a.Files {
		if f.Name != transcriptName {
			continue
		}
		lines := strings.Split(strings.TrimSuffix(string(f.Data), "\n"), "\n")
		for n, text := range r.updated {
			if n-1 < len(lines) {
				lines[n-1] = text
			}
		}
		a.Files[i].Data = []byte(strings.Join(lines, "\n") + "\n")
	}
	return txtar.Format(&a)
}

// readLine reads one newline-delimited message, skipping blank lines.
func readLine(br *bufio.Reader) ([]byte, error) {
	for {
		line, err := br.ReadBytes('\n')
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			return trimmed, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// writeFrame sends one message with a Content-Length header.
func writeFrame(w io.Writer, body []byte) error {
	_, err := fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(body), body)
	return err
}

// WriteFrame sends one message with a Content-Length header.
func WriteFrame(w io.Writer, body []byte) error { return writeFrame(w, body) }

// ReadFrame reads one Content-Length framed message body.
func ReadFrame(br *bufio.Reader) ([]byte, error) {
	length := -1
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil {
				return nil, fmt.Errorf("bad Content-Length %q", value)
			}
			length = n
		}
	}
	if length < 0 {
		return nil, errors.New("a message without Content-Length")
	}
	body := make([]byte, length)
	_, err := io.ReadFull(br, body)
	return body, err
}
