package fs

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/udiff"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
	"github.com/toolhost/toolhost/workspace/workspacetest"
)

// TestBigChangeResults: a Write that changes every line of a 2.5 MB file
// returns a structuredPatch cut at maxPatchBytes and marked so, on disk and
// through an editor (which ends with exactly the new content); an Edit of
// the first and last lines of the same file returns two small hunks.
func TestBigChangeResults(t *testing.T) {
	old := bigText(30_000, "old")
	for _, withEditor := range []bool{false, true} {
		ws, p := bigFileWorkspace(t, old)
		var host tools.Host
		var ed *workspacetest.FakeEditor
		if withEditor {
			ed = workspacetest.NewFakeEditor(ws)
			host = editorHost{ed: ed}
		}
		if res := call(t, context.Background(), NewRead(ws), nil, map[string]any{"file_path": p, "limit": 5}); res.IsError {
			t.Fatal(res.Text())
		}

		next := strings.ReplaceAll(old, "old line", "new line")
		res := call(t, context.Background(), NewWrite(ws), host, map[string]any{"file_path": p, "content": next})
		if res.IsError {
			t.Fatal(res.Text())
		}
		s := res.Structured.(map[string]any)
		hunks := s["structuredPatch"].([]udiff.Hunk)
		size := 0
		for _, h := range hunks {
			for _, l := range h.Lines {
				size += len(l) + 1
			}
		}
		if s["structuredPatchTruncated"] != true || size > maxPatchBytes || size < maxPatchBytes/2 {
			t.Errorf("editor=%v: structuredPatch of %d bytes, truncated=%v; want at most %d bytes, marked truncated", withEditor, size, s["structuredPatchTruncated"], maxPatchBytes)
		}
		if s["originalFileOmitted"] != true || s["contentOmitted"] != true || s["originalFile"] != nil || s["content"] != nil {
			t.Errorf("editor=%v: a 2.5 MB Write echoes originalFile or content back (omitted: %v, %v)", withEditor, s["originalFileOmitted"], s["contentOmitted"])
		}
		if !strings.Contains(res.Text(), "[diff cut at") {
			t.Errorf("editor=%v: the text does not say the diff is cut", withEditor)
		}
		if got, _ := os.ReadFile(p); string(got) != next {
			t.Errorf("editor=%v: the file does not hold the new content", withEditor)
		}
		if withEditor {
			if buf, _, _ := ed.Buffer(p); buf != next {
				t.Errorf("the editor's buffer does not hold the new content after applying the edits")
			}
		}

		res = call(t, context.Background(), NewEdit(ws, nil), host, map[string]any{"file_path": p, "old_string": "the lazy dog, again and again\nnew line 00000001", "new_string": "THE LAZY DOG, again and again\nnew line 00000001"})
		if res.IsError {
			t.Fatal(res.Text())
		}
		res = call(t, context.Background(), NewEdit(ws, nil), host, map[string]any{"file_path": p, "old_string": "new line 00029999:", "new_string": "NEW LINE 00029999:"})
		if res.IsError {
			t.Fatal(res.Text())
		}
		s = res.Structured.(map[string]any)
		hunks = s["structuredPatch"].([]udiff.Hunk)
		if s["structuredPatchTruncated"] != nil || len(hunks) != 1 || hunks[0].OldStart != 29_997 || len(hunks[0].Lines) != 5 {
			t.Errorf("editor=%v: the Edit of the last line gave %d hunks (%+v), truncated=%v", withEditor, len(hunks), hunks, s["structuredPatchTruncated"])
		}
	}
}

// TestReplaceAllFirstAndLastLines: a replace_all touching only the first
// and last lines of a large file returns one small hunk for each.
func TestReplaceAllFirstAndLastLines(t *testing.T) {
	text := "first MARK\n" + bigText(30_000, "x") + "last MARK\n"
	ws, p := bigFileWorkspace(t, text)
	if res := call(t, context.Background(), NewRead(ws), nil, map[string]any{"file_path": p, "limit": 5}); res.IsError {
		t.Fatal(res.Text())
	}
	res := call(t, context.Background(), NewEdit(ws, nil), nil, map[string]any{"file_path": p, "old_string": "MARK", "new_string": "mark", "replace_all": true})
	if res.IsError {
		t.Fatal(res.Text())
	}
	hunks := res.Structured.(map[string]any)["structuredPatch"].([]udiff.Hunk)
	if len(hunks) != 2 || len(hunks[0].Lines) != 5 || len(hunks[1].Lines) != 5 || hunks[1].OldStart != 29_999 {
		t.Fatalf("got %d hunks, want two of 5 lines: %+v", len(hunks), hunks)
	}
	if got, _ := os.ReadFile(p); string(got) != strings.ReplaceAll(text, "MARK", "mark") {
		t.Fatal("the file does not hold the replaced text")
	}
}

// TestWriteAccessSkipsTheContent: the permission check's read of a Write
// input finds file_path wherever it is and does not copy the content.
func TestWriteAccessSkipsTheContent(t *testing.T) {
	content := strings.Repeat("x", 4<<20)
	for _, input := range []string{
		`{"file_path":"a.txt","content":"` + content + `"}`,
		`{"content":"` + content + `","file_path":"a.txt"}`,
	} {
		raw := json.RawMessage(input)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		a := NewWrite(nil).Access(raw)
		runtime.ReadMemStats(&after)
		if len(a.WritePaths) != 1 || a.WritePaths[0] != "a.txt" {
			t.Fatalf("Access gave %+v", a)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > uint64(len(content))/4 {
			t.Errorf("Access allocated %d bytes for a %d-byte content", n, len(content))
		}
	}
	if a := NewWrite(nil).Access(json.RawMessage(`{"file_path":`)); len(a.WritePaths) != 0 {
		t.Errorf("a broken input gave %+v", a)
	}
}

// TestEditPrecheckBuildsNoContent: the check before the permission prompt
// reads the file but does not build the edited copy of it (Execute does),
// so a large file is not held three times over.
func TestEditPrecheckBuildsNoContent(t *testing.T) {
	text := bigText(100_000, "x") // about 8 MB
	ws, p := bigFileWorkspace(t, text)
	if res := call(t, context.Background(), NewRead(ws), nil, map[string]any{"file_path": p, "limit": 5}); res.IsError {
		t.Fatal(res.Text())
	}
	input, _ := json.Marshal(map[string]any{"file_path": p, "old_string": "x line 00050000:", "new_string": "x LINE 00050000:"})
	e := NewEdit(ws, nil)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res := e.Precheck(context.Background(), tools.NoHost{}, input)
	runtime.ReadMemStats(&after)
	if res != nil {
		t.Fatal(res.Text())
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > uint64(len(text))*3/2 {
		t.Errorf("Precheck allocated %d bytes for a %d-byte file; want the read alone", n, len(text))
	}
	if bad := e.Precheck(context.Background(), tools.NoHost{}, []byte(`{"file_path":`+quoteJSON(p)+`,"old_string":"absent","new_string":"b"}`)); bad == nil || !bad.IsError {
		t.Errorf("Precheck of an edit that cannot match passed")
	}
}

// TestBigWritePreview: the permission prompt's diff of a big rewrite is cut
// and says how large the whole diff is.
func TestBigWritePreview(t *testing.T) {
	old := bigText(30_000, "old")
	ws, p := bigFileWorkspace(t, old)
	next := strings.ReplaceAll(old, "old line", "new line")
	input, _ := json.Marshal(map[string]any{"file_path": p, "content": next})
	pv := NewWrite(ws).Preview(context.Background(), input)
	if pv == nil {
		t.Fatal("no preview")
	}
	var cut, total int
	i := strings.LastIndex(pv.Text, "[diff cut at ")
	if i < 0 {
		t.Fatalf("the preview does not say it is cut: %q", pv.Text[max(0, len(pv.Text)-200):])
	}
	if _, err := fmt.Sscanf(pv.Text[i:], "[diff cut at %d of %d characters]", &cut, &total); err != nil || cut > maxDiffChars || total < len(old)+len(next) {
		t.Errorf("preview cut at %d of %d characters (%v); want at most %d of at least %d", cut, total, err, maxDiffChars, len(old)+len(next))
	}
}

// bigFileWorkspace is a workspace in a new folder holding big.txt with
// text, and that file's path.
func bigFileWorkspace(tb testing.TB, text string) (*workspace.Workspace, string) {
	tb.Helper()
	dir := tb.TempDir()
	p := filepath.Join(dir, "big.txt")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		tb.Fatal(err)
	}
	return workspace.New(dir), p
}
