package workspace_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/workspace"
	"github.com/toolhost/toolhost/workspace/workspacetest"
)

// The per-call cost of an open document: Read takes the overlay's text and
// Edit plans on it, each after asking what the disk holds under it (one
// stat when nothing changed: 100 KB document, 2 shared cores, noisy —
// Read 6-10 µs, 1 alloc before; 14-24 µs, 3 allocs (the stat) after;
// Modify 7-13 ms either way, dominated by the server's fsync).

func openDocBench(b *testing.B) (*workspace.Workspace, *workspacetest.FakeEditor, string, string) {
	b.Helper()
	dir := b.TempDir()
	path := filepath.Join(dir, "doc.go")
	text := strings.Repeat("line of some source text\n", 4000) // 100 KB
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	ws := workspace.New(dir)
	ed := workspacetest.NewFakeEditor(ws)
	if err := ed.Open(path, text); err != nil {
		b.Fatal(err)
	}
	return ws, ed, path, text
}

func BenchmarkReadOpenDocument(b *testing.B) {
	ws, _, path, _ := openDocBench(b)
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		data, _, err := ws.ReadFileLimit(context.Background(), path, buf, workspace.ReadFileMax)
		if err != nil {
			b.Fatal(err)
		}
		buf = data
	}
}

func BenchmarkModifyOpenDocument(b *testing.B) {
	b.Run("no journal", func(b *testing.B) { benchModify(b, false) })
	// The change journal hashes both contents and stores the one before.
	b.Run("journal", func(b *testing.B) { benchModify(b, true) })
}

func benchModify(b *testing.B, journal bool) {
	ws, ed, path, _ := openDocBench(b)
	if journal {
		ws.SetJournal(workspace.OpenJournal(b.TempDir(), workspace.JournalOptions{}))
	}
	ws.SetReadBeforeWrite(false)
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		_, err := ws.Modify(ctx, ed, workspace.Modification{Path: path, Label: "Edit doc.go", Plan: func(cur []byte) ([]byte, error) {
			next := append([]byte(nil), cur...)
			next[i%len(next)] = 'x' + byte(i%2)
			return next, nil
		}})
		if err != nil {
			b.Fatal(err)
		}
	}
}
