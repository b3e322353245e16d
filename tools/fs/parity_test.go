package fs

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/engine"
	"github.com/toolhost/toolhost/workspace/workspacetest"
)

// TestReadEditParityAnswers states Claude Code's answers to the inputs
// where toolhost answered differently: a text file with a stray NUL byte is
// shown, a negative offset reads from line 1, and an Edit of a binary file
// whose Read failed says at once why it cannot be edited instead of asking
// for a Read first.
func TestReadEditParityAnswers(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		content string
		tool    string
		input   map[string]any
		isError bool
		want    []string
		absent  []string
	}{
		{
			name: "a NUL byte in a text file is shown", file: "log.txt", content: "start\nbad\x00byte\nend\n",
			tool: "Read", input: map[string]any{},
			want: []string{"     1\tstart\n", "     2\tbad\x00byte\n", "     3\tend\n"},
		},
		{
			name: "a binary file is still refused", file: "blob.dat", content: "\x7fELF\x02\x01\x01\x00\x00\x00\xff\xfe",
			tool: "Read", input: map[string]any{}, isError: true, want: []string{"binary file"},
		},
		{
			name: "UTF-16 without a BOM is binary", file: "u16.txt", content: "h\x00e\x00l\x00l\x00o\x00",
			tool: "Read", input: map[string]any{}, isError: true, want: []string{"binary file"},
		},
		{
			name: "a negative offset reads from line 1", file: "a.txt", content: "one\ntwo\n",
			tool: "Read", input: map[string]any{"offset": -5},
			want: []string{"     1\tone\n     2\ttwo\n"},
		},
		{
			name: "Edit of an unread binary file says it is binary", file: "blob.dat", content: "\x7fELF\x02\x01\x01\x00\x00\x00\xff\xfe",
			tool: "Edit", input: map[string]any{"old_string": "ELF", "new_string": "FLE"}, isError: true,
			want: []string{"holds NUL bytes", "binary file", "Edit changes text files only"}, absent: []string{"Read it first"},
		},
		{
			name: "Edit of an unread file of a binary type says it is binary", file: "a.zip", content: "PK whatever",
			tool: "Edit", input: map[string]any{"old_string": "PK", "new_string": "KP"}, isError: true,
			want: []string{"binary file by its type"}, absent: []string{"Read it first"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			p := e.write(tt.file, tt.content, 0o644)
			tt.input["file_path"] = p
			var tool tools.Tool = NewRead(e.ws)
			if tt.tool == "Edit" {
				// As the model does it: a Read first, which fails.
				if res := call(t, context.Background(), tool, nil, map[string]any{"file_path": p}); !res.IsError {
					t.Fatalf("Read of %s succeeded", tt.file)
				}
				edit := NewEdit(e.ws, nil)
				// The pipeline's check before any prompt, and the call itself.
				raw := mustJSON(t, tt.input)
				pre := edit.Precheck(context.Background(), tools.NoHost{}, raw)
				if pre == nil {
					t.Fatal("Precheck let the edit through")
				}
				wantResult(t, pre, true, tt.want...)
				tool = edit
			} else {
				res, err := engine.NewValidator().Validate(tool, mustJSON(t, tt.input), nil)
				if err != nil || res != nil {
					t.Fatalf("the schema refuses %v: %v %v", tt.input, err, res)
				}
			}
			res := call(t, context.Background(), tool, nil, tt.input)
			wantResult(t, res, tt.isError, tt.want...)
			for _, a := range tt.absent {
				if strings.Contains(res.Text(), a) {
					t.Errorf("text holds %q:\n%s", a, res.Text())
				}
			}
			if tt.tool == "Edit" && e.read(tt.file) != tt.content {
				t.Error("the binary file changed")
			}
		})
	}
}

// mustJSON marshals v.
func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestWriteKeepsEncoding states Claude Code's Write over an existing file:
// its encoding and byte-order mark are kept, and a file whose encoding
// cannot be kept (Latin-1) is refused, before any prompt, and left alone.
func TestWriteKeepsEncoding(t *testing.T) {
	tests := []struct {
		name, initial, content string
		isError                bool
		want                   []string
		// disk is the file afterwards; "" means unchanged.
		disk string
	}{
		{name: "plain UTF-8", initial: "old\n", content: "n\u00e9w\n", disk: "n\u00e9w\n"},
		{name: "UTF-8 BOM kept", initial: "\uFEFFold\n", content: "new\n",
			want: []string{"encoding (UTF-8 with BOM) was kept"}, disk: "\uFEFFnew\n"},
		{name: "a BOM in the content is not doubled", initial: "\uFEFFold\n", content: "\uFEFFnew\n", disk: "\uFEFFnew\n"},
		{name: "UTF-16LE kept", initial: "\xff\xfeo\x00l\x00d\x00", content: "n\u00e9w",
			want: []string{"UTF-16LE with BOM", "-old", "+n\u00e9w"}, disk: "\xff\xfen\x00\xe9\x00w\x00"},
		{name: "UTF-16BE kept", initial: "\xfe\xff\x00o\x00l\x00d", content: "new",
			want: []string{"UTF-16BE with BOM"}, disk: "\xfe\xff\x00n\x00e\x00w"},
		{name: "Latin-1 refused", initial: "caf\xe9\n", content: "caf\u00e9\n", isError: true,
			want: []string{"not valid UTF-8", "Latin-1", "iconv"}},
	}
	// Through an editor too: a UTF-16 file the editor does not have open is
	// written in its encoding rather than refused.
	for _, withEditor := range []bool{false, true} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/editor=%v", tt.name, withEditor), func(t *testing.T) {
				e := newEnv(t)
				p := e.write("f.txt", tt.initial, 0o644)
				e.readFile(p)
				var host tools.Host
				if withEditor {
					host = editorHost{ed: workspacetest.NewFakeEditor(e.ws)}
				}
				w := NewWrite(e.ws)
				input := map[string]any{"file_path": p, "content": tt.content}
				pre := w.Precheck(context.Background(), tools.NoHost{}, mustJSON(t, input))
				if (pre != nil) != tt.isError {
					t.Fatalf("Precheck = %v, want an error: %v", pre, tt.isError)
				}
				res := call(t, context.Background(), w, host, input)
				wantResult(t, res, tt.isError, tt.want...)
				want := tt.disk
				if want == "" {
					want = tt.initial
				}
				if got := e.read("f.txt"); got != want {
					t.Errorf("disk = %q, want %q", got, want)
				}
			})
		}
	}
}

// An Edit of a UTF-16 file through an editor that does not have it open
// keeps its encoding, as without an editor (Claude Code edits UTF-16).
func TestEditUTF16ThroughTheEditor(t *testing.T) {
	e := newEnv(t)
	p := e.write("u.txt", "\xff\xfeo\x00l\x00d\x00\n\x00", 0o644)
	e.readFile(p)
	fe := workspacetest.NewFakeEditor(e.ws)
	res := call(t, context.Background(), NewEdit(e.ws, nil), editorHost{ed: fe}, map[string]any{"file_path": p, "old_string": "old", "new_string": "n\u00e9w"})
	wantResult(t, res, false, "UTF-16LE with BOM")
	if got, want := e.read("u.txt"), "\xff\xfen\x00\xe9\x00w\x00\n\x00"; got != want {
		t.Errorf("disk = %q, want %q", got, want)
	}
}
