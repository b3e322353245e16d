package lspserver

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/session"
	"github.com/toolhost/toolhost/workspace"
)

// TestRecycledBodiesLeaveDocumentsWhole: the buffers of large notifications
// are reused for the messages after them (Stream.Recycle), so a document
// whose text or name still pointed into one would change under the next
// message. Documents opened and changed in turn, each message as large as
// the last, keep their own texts and names.
func TestRecycledBodiesLeaveDocumentsWhole(t *testing.T) {
	sessions := make(chan *session.Session, 1)
	c := startServer(t, Options{OnSession: func(s *session.Session) { registerTestTools(s.Registry); sessions <- s }})
	root := t.TempDir()
	c.initialize(root, nil)
	sess := <-sessions
	// No escapes: a decoder could then hand out views of the message.
	text := func(fill string) string { return strings.Repeat(fill+" words of a large document ", recycleMin/20) }
	paths := []string{filepath.Join(root, "a.txt"), filepath.Join(root, "b.txt")}
	steps := []struct {
		method string
		doc    int
		text   string
	}{
		{"textDocument/didOpen", 0, text("first")},
		{"textDocument/didOpen", 1, text("other")},
		{"textDocument/didChange", 0, text("third")},
		{"textDocument/didChange", 1, text("forth")},
	}
	want := map[int]string{}
	for i, st := range steps {
		uri := workspace.PathToURI(paths[st.doc])
		if st.method == "textDocument/didOpen" {
			c.notify(st.method, map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "plaintext", "version": 1, "text": st.text}})
		} else {
			c.notify(st.method, map[string]any{"textDocument": map[string]any{"uri": uri, "version": i + 2},
				"contentChanges": []any{map[string]any{"text": st.text}}})
		}
		want[st.doc] = st.text
	}
	// Notifications are handled in order before a later request is read.
	c.request(1, "shutdown", nil)
	c.nextFor("the reply to shutdown")
	for doc, w := range want {
		got, _, open := sess.Workspace.Document(paths[doc])
		if !open || got != w {
			t.Errorf("%s: open %v, text %.40q… (%d bytes), want %.40q… (%d bytes)", paths[doc], open, got, len(got), w, len(w))
		}
	}
}
