package fs

import (
	"context"
	"encoding/json"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace/workspacetest"
)

// allocatedBy is how many bytes f allocates on the heap.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestEditRefusesHugeFileWithoutReadingIt: an Edit of a file never read,
// or of one grown past what Read shows, is refused before the file is
// read. Reading it first cost its size in memory on every call (1 GB RSS
// for a 1 GB file).
func TestEditRefusesHugeFileWithoutReadingIt(t *testing.T) {
	const huge = maxReadBytes + 64<<20
	tests := []struct {
		name string
		// readSmall reads the file while it is small, then it grows.
		readSmall bool
		tool      string
	}{
		{name: "Edit of a never-read file", tool: "Edit"},
		{name: "Edit of a file grown past the read cap", readSmall: true, tool: "Edit"},
		{name: "Write over a never-read file", tool: "Write"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			p := e.write("big.log", "start\n", 0o644)
			if tc.readSmall {
				e.readFile(p)
			}
			// Sparse: a huge size without the disk space.
			if err := os.Truncate(p, huge); err != nil {
				t.Fatal(err)
			}
			var tool tools.Tool = NewEdit(e.ws, nil)
			input := map[string]any{"file_path": p, "old_string": "start", "new_string": "begin"}
			if tc.tool == "Write" {
				tool, input = NewWrite(e.ws), map[string]any{"file_path": p, "content": "x"}
			}
			raw, _ := json.Marshal(input)
			var pre, res *tools.Result
			n := allocatedBy(func() {
				pre = tool.(tools.Prechecker).Precheck(context.Background(), tools.NoHost{}, raw)
				res = call(t, context.Background(), tool, nil, input)
			})
			if pre == nil || !pre.IsError || !res.IsError {
				t.Fatalf("precheck %v, result %v: want both refused", pre, res)
			}
			if n > 32<<20 {
				t.Errorf("the refusal allocated %d MB: the file was read", n>>20)
			}
			if st, _ := os.Stat(p); st.Size() != huge {
				t.Errorf("the file changed size to %d", st.Size())
			}
		})
	}
}

// TestBashRewriteUnderOpenDocument: the file is open and unmodified in the
// editor, a command rewrites it on disk; Read shows the disk, and Edit and
// Write plan on it, keeping the command's change. With unsaved typing in
// the buffer, changes are refused and the disk keeps the command's bytes.
func TestBashRewriteUnderOpenDocument(t *testing.T) {
	const opened, byBash = "one\ntwo\nthree\n", "one\nTWO (formatted)\nthree\n"
	tests := []struct {
		name      string
		applyEdit bool
		dirty     bool
		tool      string
		input     func(p string) map[string]any
		wantDisk  string
	}{
		{
			name: "Edit through the editor", applyEdit: true, tool: "Edit",
			input: func(p string) map[string]any {
				return map[string]any{"file_path": p, "old_string": "three", "new_string": "3"}
			},
			wantDisk: "one\nTWO (formatted)\n3\n",
		},
		{
			name: "Edit written by the server", tool: "Edit",
			input: func(p string) map[string]any {
				return map[string]any{"file_path": p, "old_string": "three", "new_string": "3"}
			},
			wantDisk: "one\nTWO (formatted)\n3\n",
		},
		{
			name: "Write through the editor", applyEdit: true, tool: "Write",
			input:    func(p string) map[string]any { return map[string]any{"file_path": p, "content": byBash + "four\n"} },
			wantDisk: byBash + "four\n",
		},
		{
			name: "Edit over unsaved typing", applyEdit: true, dirty: true, tool: "Edit",
			input: func(p string) map[string]any {
				return map[string]any{"file_path": p, "old_string": "three", "new_string": "3"}
			},
			wantDisk: byBash,
		},
		{
			name: "Write over unsaved typing, server's own write", dirty: true, tool: "Write",
			input:    func(p string) map[string]any { return map[string]any{"file_path": p, "content": "replaced\n"} },
			wantDisk: byBash,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			p := e.write("notes.txt", opened, 0o644)
			ed := workspacetest.NewFakeEditor(e.ws)
			ed.SetCanApplyEdit(tc.applyEdit)
			if err := ed.Open(p, opened); err != nil {
				t.Fatal(err)
			}
			if tc.dirty {
				if err := ed.Type(p, opened+"typed\n"); err != nil {
					t.Fatal(err)
				}
			}
			e.write("notes.txt", byBash, 0o644) // the command's rewrite
			read := call(t, context.Background(), NewRead(e.ws), nil, map[string]any{"file_path": p})
			if !tc.dirty && !strings.Contains(read.Text(), "TWO (formatted)") {
				t.Errorf("Read under an unmodified buffer shows the stale buffer:\n%s", read.Text())
			}
			var tool tools.Tool = NewEdit(e.ws, nil)
			if tc.tool == "Write" {
				tool = NewWrite(e.ws)
			}
			res := call(t, context.Background(), tool, editorHost{ed: ed}, tc.input(p))
			if got := e.read("notes.txt"); got != tc.wantDisk {
				t.Errorf("disk = %q, want %q\nresult: %s", got, tc.wantDisk, res.Text())
			}
			if tc.dirty != res.IsError {
				t.Errorf("IsError = %v, want %v: %s", res.IsError, tc.dirty, res.Text())
			}
			if tc.dirty {
				if text, _, _ := ed.Buffer(p); text != opened+"typed\n" {
					t.Errorf("buffer = %q, want the typing kept", text)
				}
			}
			if tc.applyEdit && !tc.dirty {
				if text, _, _ := ed.Buffer(p); text != tc.wantDisk {
					t.Errorf("buffer = %q, want it brought to %q", text, tc.wantDisk)
				}
			}
		})
	}
}
