package fs

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testfifo"
	"github.com/toolhost/toolhost/internal/wine"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace/workspacetest"
)

// finishes runs f and fails the test if it has not returned after a
// generous bound: the calls under test used to block forever.
func finishes(t *testing.T, what string, f func() *tools.Result) *tools.Result {
	t.Helper()
	done := make(chan *tools.Result, 1)
	go func() { done <- f() }()
	select {
	case res := <-done:
		return res
	case <-time.After(20 * time.Second):
		t.Fatalf("%s did not return: it blocks", what)
		return nil
	}
}

// Anything that is not a regular file or a folder is refused by every file
// tool, without blocking on it.
func TestFileToolsRefuseSpecialFiles(t *testing.T) {
	e := newEnv(t)
	fifo := e.path("pipe.txt")
	testfifo.Make(t, fifo)
	nb := e.path("pipe.ipynb")
	testfifo.Make(t, nb)
	ctx := context.Background()
	cases := []struct {
		name  string
		tool  tools.Tool
		input map[string]any
		want  string
	}{
		{"Read FIFO", NewRead(e.ws), map[string]any{"file_path": fifo}, "named pipe (FIFO), not a regular file"},
		{"Read /dev/zero", NewRead(e.ws), map[string]any{"file_path": "/dev/zero"}, "character device, not a regular file"},
		{"Read /dev/urandom", NewRead(e.ws), map[string]any{"file_path": "/dev/urandom"}, "character device"},
		{"Write FIFO", NewWrite(e.ws), map[string]any{"file_path": fifo, "content": "x"}, "named pipe (FIFO)"},
		{"Edit FIFO", NewEdit(e.ws, nil), map[string]any{"file_path": fifo, "old_string": "a", "new_string": "b"}, "named pipe (FIFO)"},
		{"NotebookEdit FIFO", NewNotebookEdit(e.ws), map[string]any{"notebook_path": nb, "new_source": "x", "cell_id": "a"}, "named pipe (FIFO)"},
	}
	for _, c := range cases {
		res := finishes(t, c.name, func() *tools.Result { return call(t, ctx, c.tool, nil, c.input) })
		if !res.IsError {
			t.Errorf("%s: not refused: %s", c.name, res.Text())
			continue
		}
		wantResult(t, res, true, c.want)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v", err)
	}
}

// Edit and Write through a symlink change the target and keep the link,
// with or without an editor.
func TestChangesThroughSymlinkKeepTheLink(t *testing.T) {
	wine.Skip(t, wine.Links)
	for _, withEditor := range []bool{false, true} {
		e := newEnv(t)
		target := e.write("real/config.txt", "port = 80\n", 0o644)
		link := e.path("config.txt")
		if err := os.Symlink(filepath.Join("real", "config.txt"), link); err != nil {
			t.Fatal(err)
		}
		var host tools.Host
		if withEditor {
			host = editorHost{ed: workspacetest.NewFakeEditor(e.ws)}
		}
		e.readFile(link)
		res := call(t, context.Background(), NewEdit(e.ws, nil), host, map[string]any{"file_path": link, "old_string": "80", "new_string": "8080"})
		wantResult(t, res, false)
		res = call(t, context.Background(), NewWrite(e.ws), host, map[string]any{"file_path": link, "content": "port = 9090\n"})
		wantResult(t, res, false)
		if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("editor %v: the link was replaced by a regular file", withEditor)
		}
		if got, _ := os.ReadFile(target); string(got) != "port = 9090\n" {
			t.Errorf("editor %v: the target holds %q", withEditor, got)
		}
	}
}

// A read-only file is refused with a message that says so, and kept.
func TestEditRefusesReadOnlyFile(t *testing.T) {
	e := newEnv(t)
	p := e.write("locked.txt", "v1\n", 0o444)
	e.readFile(p)
	res := call(t, context.Background(), NewEdit(e.ws, nil), nil, map[string]any{"file_path": p, "old_string": "v1", "new_string": "v2"})
	wantResult(t, res, true, "is read-only (mode 0444)", "chmod u+w")
	if got := e.read("locked.txt"); got != "v1\n" {
		t.Errorf("the read-only file holds %q", got)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o444 {
		t.Errorf("mode became %v", st.Mode().Perm())
	}
}

// A read ends when its context ends.
func TestReadEndsOnCancel(t *testing.T) {
	e := newEnv(t)
	p := e.write("big.txt", "line\n", 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := NewRead(e.ws).Execute(ctx, &tools.Call{ID: "t", Name: "Read", Input: []byte(`{"file_path":` + quoteJSON(p) + `}`), Host: tools.NoHost{}, Progress: tools.NoProgress{}})
	if err == nil {
		t.Errorf("Read under a cancelled context returned %v, want the context's error", res.Text())
	}
}
