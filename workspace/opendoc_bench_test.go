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
// Edit plans on it, each after asking what the disk holds under it.

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
	ws, ed, path, _ := openDocBench(b)
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
