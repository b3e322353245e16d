package fs

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
	"github.com/toolhost/toolhost/workspace/workspacetest"
)

// editorHost is a Host whose editor is a FakeEditor.
type editorHost struct {
	tools.NoHost
	ed *workspacetest.FakeEditor
}

func (h editorHost) CanApplyEdit() bool      { return h.ed.CanApplyEdit() }
func (h editorHost) SavesAppliedEdits() bool { return h.ed.SavesAppliedEdits() }
func (h editorHost) ApplyEdit(ctx context.Context, p *workspace.ApplyWorkspaceEditParams) (*workspace.ApplyWorkspaceEditResult, error) {
	return h.ed.ApplyEdit(ctx, p)
}

// env is a temporary workspace for one test.
type env struct {
	t   *testing.T
	dir string
	ws  *workspace.Workspace
}

func newEnv(t *testing.T) *env {
	t.Helper()
	dir := t.TempDir()
	return &env{t: t, dir: dir, ws: workspace.New(dir)}
}

// quoteJSON is s as a JSON string, for inputs a test writes by hand: a
// Windows path's backslashes must be escaped there.
func quoteJSON(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// keptMode is the permission bits that a file given mode shows on this
// system: Windows keeps only the read-only attribute, which Go shows as
// 0444, and 0666 without it.
func keptMode(mode os.FileMode) os.FileMode {
	if runtime.GOOS != "windows" {
		return mode
	}
	if mode&0o200 == 0 {
		return 0o444
	}
	return 0o666
}

// path is an absolute path in the workspace.
func (e *env) path(name string) string { return filepath.Join(e.dir, filepath.FromSlash(name)) }

// write creates a file in the workspace.
func (e *env) write(name, content string, mode os.FileMode) string {
	e.t.Helper()
	p := e.path(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// read returns a file's content, failing the test when it cannot.
func (e *env) read(name string) string {
	e.t.Helper()
	data, err := os.ReadFile(e.path(name))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(data)
}

// call runs a tool with input (a value marshalled to JSON) through Execute.
func call(t testing.TB, ctx context.Context, tool tools.Tool, host tools.Host, input any) *tools.Result {
	t.Helper()
	return callAs(t, ctx, tool, tools.Call{Host: host}, input)
}

// callAs is call with the Call's other fields (ReviewEdits) as given.
func callAs(t testing.TB, ctx context.Context, tool tools.Tool, c tools.Call, input any) *tools.Result {
	t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	if c.Host == nil {
		c.Host = tools.NoHost{}
	}
	c.ID, c.Name, c.Input, c.Progress = "t", tool.Name(), raw, tools.NoProgress{}
	res, err := tool.Execute(ctx, &c)
	if err != nil {
		t.Fatalf("%s.Execute: %v", tool.Name(), err)
	}
	if res == nil {
		t.Fatalf("%s.Execute returned no result", tool.Name())
	}
	return res
}

// readFile runs Read on a path so Edit and Write may change it.
func (e *env) readFile(p string) {
	e.t.Helper()
	if res := call(e.t, context.Background(), NewRead(e.ws), nil, map[string]any{"file_path": p}); res.IsError {
		e.t.Fatalf("Read %s: %s", p, res.Text())
	}
}

// wantResult checks a result's error flag and that its text holds every want.
func wantResult(t *testing.T, res *tools.Result, isError bool, wants ...string) {
	t.Helper()
	if res.IsError != isError {
		t.Fatalf("IsError = %v, want %v; text:\n%s", res.IsError, isError, res.Text())
	}
	if isError && !strings.HasPrefix(res.Text(), "Error: ") {
		t.Errorf("error text does not start with \"Error: \": %q", res.Text())
	}
	for _, w := range wants {
		if !strings.Contains(res.Text(), w) {
			t.Errorf("result lacks %q; text:\n%s", w, res.Text())
		}
	}
}
