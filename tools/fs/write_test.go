package fs

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace/workspacetest"
)

func TestWrite(t *testing.T) {
	tests := []struct {
		name string
		// setup prepares the workspace and returns the file_path to write.
		setup   func(e *env) string
		content string
		isError bool
		want    []string
		// disk is the expected content afterwards (under the returned path).
		disk string
	}{
		{
			name:    "new file with parent folders",
			setup:   func(e *env) string { return e.path("a/b/new.txt") },
			content: "one\ntwo\n",
			want:    []string{"Created", "new.txt", "(2 lines)"},
			disk:    "one\ntwo\n",
		},
		{
			name:    "existing file never read",
			setup:   func(e *env) string { return e.write("old.txt", "keep me\n", 0o644) },
			content: "clobbered\n",
			isError: true,
			want:    []string{"has not been read", "Read it first"},
			disk:    "keep me\n",
		},
		{
			name: "existing file read first",
			setup: func(e *env) string {
				p := e.write("old.txt", "a\nb\n", 0o644)
				e.readFile(p)
				return p
			},
			content: "a\nc\n",
			want:    []string{"Updated", "--- a/old.txt", "+++ b/old.txt", "-b\n+c\n"},
			disk:    "a\nc\n",
		},
		{
			name: "changed on disk after the read",
			setup: func(e *env) string {
				p := e.write("old.txt", "v1\n", 0o644)
				e.readFile(p)
				e.write("old.txt", "someone else's v2\n", 0o644)
				return p
			},
			content: "mine\n",
			isError: true,
			want:    []string{"changed on disk", "Read the file again"},
			disk:    "someone else's v2\n",
		},
		{
			name: "same content",
			setup: func(e *env) string {
				p := e.write("same.txt", "x\n", 0o644)
				e.readFile(p)
				return p
			},
			content: "x\n",
			want:    []string{"nothing changed"},
			disk:    "x\n",
		},
		{
			name:    "a directory",
			setup:   func(e *env) string { e.write("d/f", "", 0o644); return e.path("d") },
			content: "x",
			isError: true,
			want:    []string{"is a directory"},
		},
		{
			name:    "content written as given, CRLF included",
			setup:   func(e *env) string { return e.path("crlf.txt") },
			content: "a\r\nb\r\n",
			want:    []string{"Created"},
			disk:    "a\r\nb\r\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			p := tt.setup(e)
			res := call(t, context.Background(), NewWrite(e.ws), nil, map[string]any{"file_path": p, "content": tt.content})
			wantResult(t, res, tt.isError, tt.want...)
			if tt.disk != "" {
				got, err := os.ReadFile(p)
				if err != nil || string(got) != tt.disk {
					t.Errorf("disk = %q, %v; want %q", got, err, tt.disk)
				}
			}
		})
	}
}

func TestWriteKeepsMode(t *testing.T) {
	e := newEnv(t)
	p := e.write("run.sh", "#!/bin/sh\necho old\n", 0o755)
	e.readFile(p)
	res := call(t, context.Background(), NewWrite(e.ws), nil, map[string]any{"file_path": p, "content": "#!/bin/sh\necho new\n"})
	wantResult(t, res, false, "Updated")
	if st, _ := os.Stat(p); st.Mode().Perm() != keptMode(0o755) {
		t.Errorf("mode %v, want %v", st.Mode().Perm(), keptMode(0o755))
	}
}

func TestWriteThroughEditor(t *testing.T) {
	tests := []struct {
		name    string
		reject  string
		confirm bool
		exists  bool
		isError bool
	}{
		{name: "new file: CreateFile"},
		{name: "existing file: TextDocumentEdit", exists: true},
		{name: "needs confirmation", confirm: true},
		{name: "rejected: nothing written", reject: "the user rejected the edit", isError: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			fe := workspacetest.NewFakeEditor(e.ws)
			fe.Reject(tt.reject)
			p := e.path("pkg/new.go")
			if tt.exists {
				e.write("pkg/new.go", "package old\n", 0o644)
				e.readFile(p)
			}
			res := callAs(t, context.Background(), NewWrite(e.ws), tools.Call{Host: editorHost{ed: fe}, ReviewEdits: tt.confirm}, map[string]any{"file_path": p, "content": "package pkg\n"})
			calls := fe.Calls()
			if len(calls) != 1 {
				t.Fatalf("%d applyEdit requests, want 1", len(calls))
			}
			changes := calls[0].Edit.DocumentChanges
			if !tt.exists && (len(changes) != 2 || changes[0].CreateFile == nil) {
				t.Errorf("document changes %+v, want CreateFile first", changes)
			}
			if tt.exists && (len(changes) != 1 || changes[0].TextDocumentEdit == nil) {
				t.Errorf("document changes %+v, want one TextDocumentEdit", changes)
			}
			if got := calls[0].Edit.ChangeAnnotations["toolhost"].NeedsConfirmation; got != tt.confirm {
				t.Errorf("needsConfirmation = %v, want %v", got, tt.confirm)
			}
			if !strings.Contains(calls[0].Label, "Write pkg/new.go") {
				t.Errorf("label %q does not name the tool and file", calls[0].Label)
			}
			if tt.isError {
				wantResult(t, res, true, tt.reject)
				if _, err := os.Stat(p); err == nil {
					t.Error("file written although the editor rejected the edit")
				}
				return
			}
			wantResult(t, res, false)
			if got := e.read("pkg/new.go"); got != "package pkg\n" {
				t.Errorf("disk = %q; an accepted edit must be on disk when the call returns", got)
			}
		})
	}
}

func TestWritePreview(t *testing.T) {
	e := newEnv(t)
	p := e.write("a.txt", "one\n", 0o644)
	var _ tools.Previewer = NewWrite(e.ws)
	pv := NewWrite(e.ws).Preview(context.Background(), []byte(`{"file_path":`+quoteJSON(p)+`,"content":"two\n"}`))
	if pv == nil || pv.Kind != "diff" || !strings.Contains(pv.Text, "-one\n+two\n") {
		t.Fatalf("Preview = %+v", pv)
	}
	if got := e.read("a.txt"); got != "one\n" {
		t.Errorf("Preview changed the file: %q", got)
	}
	if a := NewWrite(e.ws).Access([]byte(`{"file_path":"a.txt","content":""}`)); len(a.WritePaths) != 1 || a.WritePaths[0] != "a.txt" {
		t.Errorf("Access = %+v", a)
	}
}

// TestWriteStructured states the fields of Claude Code's FileWriteOutput:
// the content written and the original file (null for a new file).
func TestWriteStructured(t *testing.T) {
	e := newEnv(t)
	p := e.path("new.txt")
	res := call(t, context.Background(), NewWrite(e.ws), nil, map[string]any{"file_path": p, "content": "one\n"})
	st := res.Structured.(map[string]any)
	if st["type"] != "create" || st["content"] != "one\n" || st["originalFile"] != nil {
		t.Errorf("create: %v", st)
	}
	res = call(t, context.Background(), NewWrite(e.ws), nil, map[string]any{"file_path": p, "content": "two\n"})
	st = res.Structured.(map[string]any)
	if st["type"] != "update" || st["content"] != "two\n" || st["originalFile"] != "one\n" {
		t.Errorf("update: %v", st)
	}
}
