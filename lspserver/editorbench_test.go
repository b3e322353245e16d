package lspserver

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/script"
)

// BenchmarkCallToolBigWrite is a Write of 5 MB that changes every line of
// a file the editor has open, over OS pipes as bench/stdio drives the
// binary: the server sends workspace/applyEdit, the client answers with
// didChange (the whole document replaced, as VS Code reports it) and
// applied, and the server writes the file. The client's messages are encoded
// before the timer starts, so what is measured is the server's side.
func BenchmarkCallToolBigWrite(b *testing.B) {
	benchWrite(b, func(n int, size int) bool { return size < 5<<20 })
}

// BenchmarkCallToolSmallWrite is the same for a Write of a 50-line file:
// the per-call cost of the editor path.
func BenchmarkCallToolSmallWrite(b *testing.B) {
	benchWrite(b, func(n int, _ int) bool { return n <= 50 })
}

// benchWrite times Writes through the editor of a file of numbered lines,
// added while more(line number, size so far), each Write changing every
// line.
func benchWrite(b *testing.B, more func(n, size int) bool) {
	var sb strings.Builder
	for n := 1; more(n, sb.Len()); n++ {
		fmt.Fprintf(&sb, "line %d: the quick brown fox jumps over the lazy dog\n", n)
	}
	texts := [2]string{sb.String(), strings.ToUpper(sb.String())}
	benchEditorChange(b, texts, func(file string, next int) any {
		return map[string]any{"name": "Write", "input": map[string]any{"file_path": file, "content": texts[next]}}
	})
}

// BenchmarkCallToolSmallEdit is an Edit of one line of a 5,000-line file
// the editor has open.
func BenchmarkCallToolSmallEdit(b *testing.B) {
	var sb strings.Builder
	for n := 1; n <= 5000; n++ {
		fmt.Fprintf(&sb, "line %d: the quick brown fox jumps over the lazy dog\n", n)
	}
	old, new := "line 2500: the quick", "line 2500: THE QUICK"
	texts := [2]string{sb.String(), strings.Replace(sb.String(), old, new, 1)}
	benchEditorChange(b, texts, func(file string, next int) any {
		from, to := new, old
		if next == 1 {
			from, to = old, new
		}
		return map[string]any{"name": "Edit", "input": map[string]any{"file_path": file, "old_string": from, "new_string": to}}
	})
}

// benchEditorChange times calls that turn an open document's text into
// the other of texts and back, each call's params given by call for the
// text it makes (texts[next]); the client applies each applyEdit by
// reporting the whole new text with didChange, then answers applied.
func benchEditorChange(b *testing.B, texts [2]string, call func(file string, next int) any) {
	root := b.TempDir()
	b.Setenv("TOOLHOST_STATE_DIR", b.TempDir())
	file := filepath.Join(root, "rewrite.txt")
	uri := "file://" + file
	if err := os.WriteFile(file, []byte(texts[0]), 0o644); err != nil {
		b.Fatal(err)
	}
	lines := strings.Count(texts[0], "\n")
	c := startBenchCaps(b, root, map[string]any{"workspace": map[string]any{"applyEdit": true}})
	c.notify(b, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "plaintext", "version": 1, "text": texts[0]}})
	c.call(b, "toolhost/callTool", map[string]any{"name": "Read", "input": map[string]any{"file_path": file, "limit": 5}})
	// The messages of both directions are encoded once.
	var calls, changes [2][]byte
	for next := range texts {
		calls[next], _ = json.Marshal(call(file, next))
		changes[next], _ = json.Marshal(map[string]any{"contentChanges": []any{map[string]any{
			"range": map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": lines, "character": 0}},
			"text":  texts[next]}}})
	}
	var change []byte // reused: the client's copying stays out of the allocations
	b.SetBytes(int64(len(texts[0])))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		next := 1 - i%2
		version := i + 2
		// The version goes in front of the encoded changes.
		change = fmt.Appendf(change[:0], `{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":%q,"version":%d},%s`,
			uri, version, changes[next][1:])
		c.callServing(b, "toolhost/callTool", json.RawMessage(calls[next]), func(method string, id json.RawMessage) {
			if method != "workspace/applyEdit" {
				b.Fatalf("unexpected request %s", method)
			}
			change = append(change, '}')
			c.send(b, change)
			c.send(b, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{"applied":true}}`, id))
		})
	}
	b.StopTimer()
	if disk, err := os.ReadFile(file); err != nil || string(disk) != texts[b.N%2] {
		b.Fatalf("the file does not hold the last call's content (%v)", err)
	}
}

// notify sends a notification.
func (c *benchConn) notify(b *testing.B, method string, params any) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	c.send(b, body)
}

// send writes one framed message, the body as it is (not copied into the
// frame: the client's share of the allocations stays small).
func (c *benchConn) send(b *testing.B, body []byte) {
	if _, err := fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n", len(body)); err != nil {
		b.Fatal(err)
	}
	if _, err := c.w.Write(body); err != nil {
		b.Fatal(err)
	}
}

// callServing sends a request and answers the server's requests with serve
// until its reply comes; the reply's result is skipped over, not decoded.
func (c *benchConn) callServing(b *testing.B, method string, params json.RawMessage, serve func(method string, id json.RawMessage)) {
	c.seq++
	c.send(b, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, c.seq, method, params))
	for {
		body, err := script.ReadFrame(c.r)
		if err != nil {
			b.Fatal(err)
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(body, &m); err != nil {
			b.Fatal(err)
		}
		switch {
		case m.Method != "" && m.ID != nil:
			serve(m.Method, m.ID)
		case m.Method != "":
		case string(m.ID) == fmt.Sprint(c.seq):
			if m.Error != nil || strings.Contains(string(body[:min(len(body), 4096)]), `"isError":true`) {
				b.Fatalf("%s: %.500s", method, body)
			}
			return
		}
	}
}
