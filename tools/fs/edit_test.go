package fs

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace/workspacetest"
)

func TestEdit(t *testing.T) {
	tests := []struct {
		name string
		// file is the name of the file edited; "" means f.go.
		file    string
		initial string
		mode    os.FileMode
		// noRead skips the Read before the edit.
		noRead bool
		// between runs after the Read and before the Edit.
		between func(e *env, p string)
		fuzzy   bool
		input   map[string]any
		isError bool
		want    []string
		// disk is the expected file afterwards; "" means unchanged.
		disk string
	}{
		{
			name:    "one occurrence",
			initial: "a := 1\nb := 2\n",
			input:   map[string]any{"old_string": "b := 2", "new_string": "b := 3"},
			want:    []string{"replaced 1 occurrence", "--- a/f.go", "-b := 2\n+b := 3\n"},
			disk:    "a := 1\nb := 3\n",
		},
		{
			name:    "not found",
			initial: "a := 1\n",
			input:   map[string]any{"old_string": "zzz", "new_string": "y"},
			isError: true,
			want:    []string{"old_string was not found in", "f.go"},
		},
		{
			name:    "several occurrences",
			initial: "x\ny\nx\nz\nx\n",
			input:   map[string]any{"old_string": "x", "new_string": "w"},
			isError: true,
			want:    []string{"occurs 3 times", "lines 1, 3, 5", "replace_all"},
		},
		{
			name:    "many occurrences: ten lines are listed, the rest counted",
			initial: strings.Repeat("x\n", 100_000),
			input:   map[string]any{"old_string": "x", "new_string": "w"},
			isError: true,
			want:    []string{"occurs 100000 times", "lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, and 99990 more)"},
		},
		{
			name:    "replace_all",
			initial: "x\ny\nx\n",
			input:   map[string]any{"old_string": "x", "new_string": "w", "replace_all": true},
			want:    []string{"replaced 2 occurrences"},
			disk:    "w\ny\nw\n",
		},
		{
			name:    "old equals new",
			initial: "x\n",
			input:   map[string]any{"old_string": "x", "new_string": "x"},
			isError: true,
			want:    []string{"the same"},
		},
		{
			name:    "never read",
			initial: "x\n",
			noRead:  true,
			input:   map[string]any{"old_string": "x", "new_string": "y"},
			isError: true,
			want:    []string{"has not been read", "Read it first"},
		},
		{
			// Claude Code: a file changed since the Read (a formatter, a
			// checkout) takes the edit when old_string still matches exactly
			// once, and the result says the file had changed.
			name:    "changed on disk since the read: applied to the current content",
			initial: "x\n",
			between: func(e *env, p string) { e.write("f.go", "x\nmore\n", 0o644) },
			input:   map[string]any{"old_string": "x", "new_string": "y"},
			want:    []string{"was changed on disk since your last Read", "applied to the current content"},
			disk:    "y\nmore\n",
		},
		{
			name:    "changed on disk and old_string gone: refused",
			initial: "x\n",
			between: func(e *env, p string) { e.write("f.go", "z\n", 0o644) },
			input:   map[string]any{"old_string": "x", "new_string": "y"},
			isError: true,
			want:    []string{"changed on disk", "Read the file again"},
			disk:    "z\n",
		},
		{
			name:    "changed on disk and old_string now twice: refused",
			initial: "x\n",
			between: func(e *env, p string) { e.write("f.go", "x\nx\n", 0o644) },
			input:   map[string]any{"old_string": "x", "new_string": "y", "replace_all": true},
			isError: true,
			want:    []string{"changed on disk", "Read the file again"},
			disk:    "x\nx\n",
		},
		{
			name:    "changed on disk: no fuzzy match on content the model has not seen",
			initial: "\tx = 1\n",
			fuzzy:   true,
			between: func(e *env, p string) { e.write("f.go", "\tx = 1\nmore\n", 0o644) },
			input:   map[string]any{"old_string": "    x = 1", "new_string": "    x = 2"},
			isError: true,
			want:    []string{"changed on disk"},
			disk:    "\tx = 1\nmore\n",
		},
		{
			name:    "LF strings in a CRLF file keep it CRLF",
			initial: "one\r\ntwo\r\nthree\r\n",
			input:   map[string]any{"old_string": "one\ntwo\n", "new_string": "1\n2\n2.5\n"},
			disk:    "1\r\n2\r\n2.5\r\nthree\r\n",
		},
		{
			name:    "single-line old_string, multi-line new_string in a CRLF file",
			initial: "one\r\ntwo\r\n",
			input:   map[string]any{"old_string": "two", "new_string": "two\nthree"},
			disk:    "one\r\ntwo\r\nthree\r\n",
		},
		{
			name:    "BOM kept",
			initial: "\uFEFFhello\n",
			input:   map[string]any{"old_string": "hello", "new_string": "bye"},
			want:    []string{"UTF-8 with BOM"},
			disk:    "\uFEFFbye\n",
		},
		{
			name:    "mode kept",
			initial: "#!/bin/sh\necho a\n",
			mode:    0o755,
			input:   map[string]any{"old_string": "echo a", "new_string": "echo b"},
			disk:    "#!/bin/sh\necho b\n",
		},
		{
			name:    "not UTF-8 refused",
			initial: "caf\xe9 = 1\n",
			input:   map[string]any{"old_string": "= 1", "new_string": "= 2"},
			isError: true,
			want:    []string{"not valid UTF-8"},
		},
		{
			// As in Claude Code: a UTF-16 file is edited and stays UTF-16.
			name:    "UTF-16LE edited, encoding kept",
			initial: "\xff\xfea\x00=\x001\x00\n\x00",
			input:   map[string]any{"old_string": "a=1", "new_string": "é=2"},
			want:    []string{"replaced 1 occurrence", "encoding (UTF-16LE with BOM) was kept", "-a=1\n+é=2\n"},
			disk:    "\xff\xfe\xe9\x00=\x002\x00\n\x00",
		},
		{
			name:    "UTF-16BE edited, encoding kept",
			initial: "\xfe\xff\x00a\x00=\x001",
			input:   map[string]any{"old_string": "a", "new_string": "b"},
			want:    []string{"UTF-16BE with BOM"},
			disk:    "\xfe\xff\x00b\x00=\x001",
		},
		{
			name:    "UTF-16 that does not round-trip refused",
			initial: "\xff\xfe\x00\xd8a\x00",
			input:   map[string]any{"old_string": "a", "new_string": "b"},
			isError: true,
			want:    []string{"UTF-16LE with BOM text that cannot be kept exactly", "iconv"},
		},
		{
			name:    "Read's line-number prefix is called out",
			initial: "alpha\nbeta\n",
			input:   map[string]any{"old_string": "     2\tbeta", "new_string": "gamma"},
			isError: true,
			want:    []string{"line-number prefixes"},
		},
		{
			name:    "whitespace-only difference is pointed out when fuzzy is off",
			initial: "func f() {\n\treturn 1\n}\n",
			input:   map[string]any{"old_string": "    return 1", "new_string": "    return 2"},
			isError: true,
			want:    []string{"differs only in whitespace", "line 2", "edit.fuzzy"},
		},
		{
			name:    "fuzzy: indentation re-applied",
			initial: "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n",
			fuzzy:   true,
			input:   map[string]any{"old_string": "if x {\n    return 1\n}", "new_string": "if x {\n    return 2\n}"},
			want:    []string{"whitespace differences ignored"},
			disk:    "func f() {\n\tif x {\n\t\treturn 2\n\t}\n}\n",
		},
		{
			// Every level of the model's four spaces becomes one of the
			// file's tabs, not only the first line's indentation.
			name:    "fuzzy: space indentation becomes the file's tabs at every depth",
			initial: "func f() {\n\tfor {\n\t\tif x {\n\t\t\tbreak\n\t\t}\n\t}\n}\n",
			fuzzy:   true,
			input:   map[string]any{"old_string": "    for {\n        if x {\n            break\n        }\n    }", "new_string": "    for {\n        if y {\n            continue\n        }\n    }"},
			disk:    "func f() {\n\tfor {\n\t\tif y {\n\t\t\tcontinue\n\t\t}\n\t}\n}\n",
		},
		{
			name:    "fuzzy: tab indentation becomes the file's two spaces",
			initial: "def f():\n  if x:\n    return 1\n",
			fuzzy:   true,
			input:   map[string]any{"old_string": "\tif x:\n\t\treturn 1", "new_string": "\tif x:\n\t\treturn 2\n\telse:\n\t\treturn 3"},
			disk:    "def f():\n  if x:\n    return 2\n  else:\n    return 3\n",
		},
		{
			name:    "fuzzy: trailing whitespace ignored",
			initial: "a = 1   \nb = 2\n",
			fuzzy:   true,
			input:   map[string]any{"old_string": "a = 1\nb = 2", "new_string": "a = 10\nb = 20"},
			disk:    "a = 10\nb = 20\n",
		},
		{
			name:    "fuzzy: several loose matches",
			initial: "  x\n\tx\n",
			fuzzy:   true,
			input:   map[string]any{"old_string": "x ", "new_string": "y"},
			isError: true,
			want:    []string{"matches 2 places"},
		},
		{
			name:    "fuzzy: replace_all of several loose matches keeps the text between them in order",
			initial: "a\nx  \nb\nx\t\nc\nx \t\nd\n",
			fuzzy:   true,
			input:   map[string]any{"old_string": "x \t \t", "new_string": "y", "replace_all": true},
			disk:    "a\ny\nb\ny\nc\ny\nd\n",
		},
		{
			// Whitespace-insensitive matching holds 32 bytes per line: past
			// maxFuzzyLines (a file of empty lines) it is not tried.
			name:    "no whitespace hint past the fuzzy line cap",
			initial: "\treturn 1\n" + strings.Repeat("\n", maxFuzzyLines),
			input:   map[string]any{"old_string": "    return 1", "new_string": "    return 2"},
			isError: true,
			want:    []string{"old_string was not found", "copy the text exactly"},
		},
		{
			// Claude Code refuses Edit on a notebook and points to
			// NotebookEdit; a replacement in the raw JSON would write
			// unescaped quotes and break the notebook.
			name:    "notebook refused in favour of NotebookEdit",
			file:    "nb.ipynb",
			initial: `{"cells":[{"cell_type":"code","id":"a1","metadata":{},"outputs":[],"source":["x = 1"]}],"metadata":{},"nbformat":4,"nbformat_minor":5}`,
			input:   map[string]any{"old_string": "x = 1", "new_string": `x = "forty" + 2`},
			isError: true,
			want:    []string{"Jupyter notebook", "NotebookEdit", "cell_id"},
		},
		{
			// Claude Code matches ‘ ’ “ ” when the model types ' and ", and
			// keeps the file's typographic style in the replacement.
			name:    "straight quotes match curly ones, and the file's style is kept",
			initial: "msg := \"It’s “done” now\"\n",
			input:   map[string]any{"old_string": `It's "done" now`, "new_string": `It's "finished" now, isn't it`},
			want:    []string{"curly quotes"},
			disk:    "msg := \"It’s “finished” now, isn’t it\"\n",
		},
		{
			name:    "curly quotes typed where the file has straight ones",
			initial: "say('hi')\n",
			input:   map[string]any{"old_string": "say(‘hi’)", "new_string": "say(‘hello’)"},
			disk:    "say('hello')\n",
		},
		{
			name:    "an exact match is preferred to a quote-insensitive one",
			initial: "a ‘x’\nb 'x'\n",
			input:   map[string]any{"old_string": "'x'", "new_string": "'y'"},
			disk:    "a ‘x’\nb 'y'\n",
		},
		{
			name:    "quote-insensitive matches count for uniqueness",
			initial: "a ‘x’\nb “x”\nc ’x’\n",
			input:   map[string]any{"old_string": "'x'", "new_string": "'y'"},
			isError: true,
			want:    []string{"occurs 2 times", "lines 1, 3"},
		},
		{
			name:    "replace_all writes each match in its own style",
			initial: "a ‘x’\nb ’x’\n",
			input:   map[string]any{"old_string": "'x'", "new_string": "'y'", "replace_all": true},
			disk:    "a ‘y’\nb ‘y’\n",
		},
		{
			name:    "empty old_string on a non-empty file",
			initial: "x\n",
			input:   map[string]any{"old_string": "", "new_string": "y"},
			isError: true,
			want:    []string{"old_string is empty"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			mode := tt.mode
			if mode == 0 {
				mode = 0o644
			}
			file := tt.file
			if file == "" {
				file = "f.go"
			}
			p := e.write(file, tt.initial, mode)
			if err := os.Chmod(p, mode); err != nil { // umask-proof
				t.Fatal(err)
			}
			if !tt.noRead {
				e.readFile(p)
			}
			if tt.between != nil {
				tt.between(e, p)
			}
			before := e.read(file)
			s := settings.Defaults()
			s.Edit.Fuzzy = tt.fuzzy
			in := map[string]any{"file_path": p}
			for k, v := range tt.input {
				in[k] = v
			}
			res := call(t, context.Background(), NewEdit(e.ws, func() *settings.Settings { return s }), nil, in)
			wantResult(t, res, tt.isError, tt.want...)
			want := tt.disk
			if want == "" {
				want = before
			}
			if got := e.read(file); got != want {
				t.Errorf("disk = %q, want %q", got, want)
			}
			if st, _ := os.Stat(p); st.Mode().Perm() != keptMode(mode) {
				t.Errorf("mode %v, want %v", st.Mode().Perm(), keptMode(mode))
			}
		})
	}
}

func TestEditCreatesFileWithEmptyOldString(t *testing.T) {
	e := newEnv(t)
	p := e.path("new/dir/x.txt")
	res := call(t, context.Background(), NewEdit(e.ws, nil), nil, map[string]any{"file_path": p, "old_string": "", "new_string": "hello\n"})
	wantResult(t, res, false, "Created")
	if got := e.read("new/dir/x.txt"); got != "hello\n" {
		t.Errorf("disk = %q", got)
	}
	res = call(t, context.Background(), NewEdit(e.ws, nil), nil, map[string]any{"file_path": e.path("nope.txt"), "old_string": "a", "new_string": "b"})
	wantResult(t, res, true, "does not exist")
}

func TestEditTwiceWithoutReread(t *testing.T) {
	for _, withEditor := range []bool{false, true} {
		name := "disk"
		if withEditor {
			name = "editor"
		}
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			p := e.write("f.txt", "a\nb\nc\n", 0o644)
			var host tools.Host = tools.NoHost{}
			var fe *workspacetest.FakeEditor
			if withEditor {
				fe = workspacetest.NewFakeEditor(e.ws)
				if err := fe.Open(p, "a\nb\nc\n"); err != nil {
					t.Fatal(err)
				}
				host = editorHost{ed: fe}
			}
			edit := NewEdit(e.ws, nil)
			e.readFile(p)
			for _, step := range [][2]string{{"a", "A"}, {"b", "B"}, {"c", "C"}} {
				res := call(t, context.Background(), edit, host, map[string]any{"file_path": p, "old_string": step[0], "new_string": step[1]})
				wantResult(t, res, false)
			}
			if got := e.read("f.txt"); got != "A\nB\nC\n" {
				t.Errorf("disk = %q", got)
			}
			if withEditor {
				if buf, v, _ := fe.Buffer(p); buf != "A\nB\nC\n" || v != 4 {
					t.Errorf("editor buffer %q v%d, want the edited text at version 4", buf, v)
				}
			}
		})
	}
}

func TestEditThroughEditor(t *testing.T) {
	const text = "// 日本語のコメント 😀😀\nlet greeting = \"hi\" // 👋\nlet n = 1\n"
	tests := []struct {
		name string
		// open opens the document in the editor with this text ("" = closed).
		open    string
		typed   string // typed in the editor after the Read
		reject  string
		input   map[string]any
		isError bool
		want    []string
		// buffer is the editor's text afterwards.
		buffer string
		disk   string
	}{
		{
			name:   "open document: versioned edit with UTF-16 positions after emoji and CJK",
			open:   text,
			input:  map[string]any{"old_string": "\"hi\" // 👋", "new_string": "\"hello\" // 👋🏽"},
			buffer: "// 日本語のコメント 😀😀\nlet greeting = \"hello\" // 👋🏽\nlet n = 1\n",
			disk:   "// 日本語のコメント 😀😀\nlet greeting = \"hello\" // 👋🏽\nlet n = 1\n",
		},
		{
			name:   "unsaved buffer is what gets edited",
			open:   text + "let unsaved = true\n",
			input:  map[string]any{"old_string": "unsaved = true", "new_string": "unsaved = false"},
			buffer: text + "let unsaved = false\n",
			disk:   text + "let unsaved = false\n",
		},
		{
			// Claude Code applies the edit to the current content when
			// old_string still matches exactly once; the user's typing is kept.
			name:   "typed in the editor after the Read: applied to the current buffer",
			open:   text,
			typed:  text + "// user typing\n",
			input:  map[string]any{"old_string": "let n = 1", "new_string": "let n = 2"},
			want:   []string{"was changed in the editor since your last Read", "applied to the current content"},
			buffer: strings.Replace(text, "n = 1", "n = 2", 1) + "// user typing\n",
			disk:   strings.Replace(text, "n = 1", "n = 2", 1) + "// user typing\n",
		},
		{
			name:    "typed in the editor over old_string: refused",
			open:    text,
			typed:   strings.Replace(text, "n = 1", "n = 5", 1),
			input:   map[string]any{"old_string": "let n = 1", "new_string": "let n = 2"},
			isError: true,
			want:    []string{"changed in the editor", "Read the file again"},
			buffer:  strings.Replace(text, "n = 1", "n = 5", 1),
			disk:    text,
		},
		{
			name:    "rejected by the user",
			open:    text,
			reject:  "the user rejected the edit",
			input:   map[string]any{"old_string": "let n = 1", "new_string": "let n = 2"},
			isError: true,
			want:    []string{"the user rejected the edit", "unchanged"},
			buffer:  text,
			disk:    text,
		},
		{
			name:   "closed document: null version",
			input:  map[string]any{"old_string": "let n = 1", "new_string": "let n = 2"},
			buffer: strings.Replace(text, "n = 1", "n = 2", 1),
			disk:   strings.Replace(text, "n = 1", "n = 2", 1),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			p := e.write("greet.js", text, 0o644)
			fe := workspacetest.NewFakeEditor(e.ws)
			if tt.open != "" {
				if err := fe.Open(p, tt.open); err != nil {
					t.Fatal(err)
				}
			}
			e.readFile(p)
			if tt.typed != "" {
				if err := fe.Type(p, tt.typed); err != nil {
					t.Fatal(err)
				}
			}
			fe.Reject(tt.reject)
			in := map[string]any{"file_path": p}
			for k, v := range tt.input {
				in[k] = v
			}
			res := call(t, context.Background(), NewEdit(e.ws, nil), editorHost{ed: fe}, in)
			wantResult(t, res, tt.isError, tt.want...)
			if buf, _, _ := fe.Buffer(p); buf != tt.buffer {
				t.Errorf("editor buffer = %q, want %q", buf, tt.buffer)
			}
			if got := e.read("greet.js"); got != tt.disk {
				t.Errorf("disk = %q, want %q", got, tt.disk)
			}
			calls := fe.Calls()
			if tt.isError && tt.reject == "" {
				if len(calls) != 0 {
					t.Errorf("a refused edit was sent to the editor")
				}
				return
			}
			if len(calls) != 1 {
				t.Fatalf("%d applyEdit requests, want 1", len(calls))
			}
			// The edit is versioned: the editor refuses it if the buffer
			// moved on again, so typing cannot be overwritten.
			v := calls[0].Edit.DocumentChanges[0].TextDocumentEdit.TextDocument.Version
			if (tt.open != "") != (v != nil) {
				t.Errorf("textDocument.version = %v with the document open = %v", v, tt.open != "")
			}
			if _, cur, open := e.ws.Document(p); open && tt.typed != "" && v != nil && *v != cur-1 {
				t.Errorf("edit sent for version %d, the buffer was at %d before it", *v, cur-1)
			}
		})
	}
}

func TestEditNeedsConfirmation(t *testing.T) {
	e := newEnv(t)
	p := e.write("f.txt", "a\n", 0o644)
	e.readFile(p)
	fe := workspacetest.NewFakeEditor(e.ws)
	res := callAs(t, context.Background(), NewEdit(e.ws, nil), tools.Call{Host: editorHost{ed: fe}, ReviewEdits: true}, map[string]any{"file_path": p, "old_string": "a", "new_string": "b"})
	wantResult(t, res, false)
	calls := fe.Calls()
	if len(calls) != 1 {
		t.Fatalf("%d requests", len(calls))
	}
	ann, ok := calls[0].Edit.ChangeAnnotations["toolhost"]
	if !ok || !ann.NeedsConfirmation || !strings.Contains(ann.Label, "Edit f.txt") {
		t.Errorf("annotation %+v, want needsConfirmation with a label naming Edit and the file", ann)
	}
	for _, ed := range calls[0].Edit.DocumentChanges[0].TextDocumentEdit.Edits {
		if ed.AnnotationID != "toolhost" {
			t.Errorf("edit %+v lacks the annotation id", ed)
		}
	}
}

func TestEditPreview(t *testing.T) {
	e := newEnv(t)
	p := e.write("f.txt", "keep\nold\n", 0o644)
	ed := NewEdit(e.ws, nil)
	pv := ed.Preview(context.Background(), []byte(`{"file_path":`+quoteJSON(p)+`,"old_string":"old","new_string":"new"}`))
	if pv == nil || pv.Kind != "diff" || !strings.Contains(pv.Text, "-old\n+new\n") {
		t.Fatalf("Preview = %+v", pv)
	}
	if pv := ed.Preview(context.Background(), []byte(`{"file_path":`+quoteJSON(p)+`,"old_string":"absent","new_string":"x"}`)); pv != nil {
		t.Errorf("Preview of a failing edit = %+v, want nil", pv)
	}
	if got := e.read("f.txt"); got != "keep\nold\n" {
		t.Errorf("Preview changed the file")
	}
	if a := ed.Access([]byte(`{"file_path":"f.txt","old_string":"a","new_string":"b"}`)); len(a.WritePaths) != 1 {
		t.Errorf("Access = %+v", a)
	}
}
