package extras

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/internal/testfifo"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

func runMemory(t *testing.T, m *Memory, input string) *tools.Result {
	t.Helper()
	res, err := m.Execute(t.Context(), &tools.Call{Input: json.RawMessage(input)})
	if err != nil {
		t.Fatalf("%s: %v", input, err)
	}
	return res
}

func TestMemoryActions(t *testing.T) {
	root := t.TempDir()
	m := NewMemory(workspace.New(root))
	dir := filepath.Join(root, ".toolhost", "memory")

	// Each step runs on the state the previous ones left.
	steps := []struct {
		input     string
		wantError bool
		wantText  []string
		wantFiles map[string]string // file name in dir -> content; nil: not checked
	}{
		{`{"action":"list"}`, false, []string{"No notes yet"}, nil},
		{`{"action":"read","name":"nothing"}`, true, []string{`no note "nothing"`, "no notes at all"}, nil},
		{`{"action":"write","name":"Build steps.md","content":"run make\n"}`, true, []string{`the note name "Build steps.md" cannot be used`, `call again with the name "Build-steps"`}, nil},
		{`{"action":"write","name":"Build-steps.md","content":"run make\n"}`, false, []string{`Saved the note "Build-steps"`}, map[string]string{"Build-steps.md": "run make\n"}},
		{`{"action":"append","name":" Build-steps ","content":"then make test"}`, false, []string{`Appended to the note "Build-steps"`}, map[string]string{"Build-steps.md": "run make\nthen make test"}},
		{`{"action":"append","name":"Build-steps","content":"and lint"}`, false, nil, map[string]string{"Build-steps.md": "run make\nthen make test\nand lint"}},
		{`{"action":"append","name":"decisions","content":"Use SQLite for tests"}`, false, []string{`Saved the note "decisions"`}, map[string]string{"Build-steps.md": "run make\nthen make test\nand lint", "decisions.md": "Use SQLite for tests"}},
		{`{"action":"read","name":"Build-steps"}`, false, []string{"run make\nthen make test\nand lint"}, nil},
		{`{"action":"list"}`, false, []string{"2 notes", "- Build-steps (", "bytes, changed ", "): run make", "- decisions ("}, nil},
		{`{"action":"search","query":"MAKE TEST"}`, false, []string{"Build-steps:2: then make test"}, nil},
		{`{"action":"search","query":"decision"}`, false, []string{"decisions: (name matches)"}, nil},
		{`{"action":"search","query":"postgres"}`, false, []string{`No note mentions "postgres" (2 notes searched)`}, nil},
		{`{"action":"write","name":"x"}`, true, []string{"write needs content"}, nil},
		{`{"action":"search"}`, true, []string{"search needs a non-empty query"}, nil},
		{`{"action":"rename","name":"x"}`, true, []string{`unknown action "rename"`}, nil},
		{`{"action":"read","name":"///"}`, true, []string{`the note name "///" cannot be used`, "only letters"}, nil},
		{`{"action":"read","name":"  "}`, true, []string{"the note name is empty"}, nil},
		{`{"action":"delete","name":"decisions"}`, false, []string{`Deleted the note "decisions"`}, map[string]string{"Build-steps.md": "run make\nthen make test\nand lint"}},
		{`{"action":"delete","name":"decisions"}`, true, []string{`no note "decisions". The notes are: Build-steps.`}, nil},
	}
	for i, s := range steps {
		res := runMemory(t, m, s.input)
		if res.IsError != s.wantError {
			t.Fatalf("step %d %s: isError %v, want %v: %s", i, s.input, res.IsError, s.wantError, res.Text())
		}
		for _, want := range s.wantText {
			if !strings.Contains(res.Text(), want) {
				t.Errorf("step %d %s: text %q lacks %q", i, s.input, res.Text(), want)
			}
		}
		if s.wantFiles != nil {
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, e := range entries {
				data, err := os.ReadFile(filepath.Join(dir, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				got[e.Name()] = string(data)
			}
			if len(got) != len(s.wantFiles) {
				t.Errorf("step %d: files %v, want %v", i, got, s.wantFiles)
			}
			for name, want := range s.wantFiles {
				if got[name] != want {
					t.Errorf("step %d: %s holds %q, want %q", i, name, got[name], want)
				}
			}
		}
	}
}

// A name that is not a note's file name as it is — a path, a hidden file,
// a name that would read as two lines — is refused, not rewritten, so that
// distinct names never land in one note ("a/b" and "a\nb" once both
// became "a-b"), and nothing is created.
func TestMemoryRefusesNamesThatAreNotFileNames(t *testing.T) {
	root := t.TempDir()
	m := NewMemory(workspace.New(root))
	tests := []struct{ name, suggest string }{
		{"../../escaped", "escaped"},
		{"/etc/passwd", "etc-passwd"},
		{`..\..\win`, "win"},
		{"a/../../b", "a-..-..-b"},
		{".hidden", "hidden"},
		{"~/home", "home"},
		{"a/b", "a-b"},
		{"a\nb", "a-b"},
		{"a\rb", "a-b"},
		{"a\x1b[2Jb", "a-2Jb"},
		{"a\u202eb", "a-b"},
		{`"quoted"`, "quoted"},
		{"..", ""},
		{"-flag", "flag"},
		{"caf\u00e9", "caf"},
	}
	for _, tc := range tests {
		input, _ := json.Marshal(map[string]string{"action": "write", "name": tc.name, "content": "x"})
		res := runMemory(t, m, string(input))
		text := res.Text()
		if !res.IsError || !strings.Contains(text, "cannot be used") || !strings.Contains(text, "only letters (a-z, A-Z), digits, '.', '_' and '-'") {
			t.Errorf("write %q: not refused with the rule: %s", tc.name, text)
		}
		if tc.suggest != "" && !strings.Contains(text, fmt.Sprintf("call again with the name %q", tc.suggest)) {
			t.Errorf("write %q: does not suggest %q: %s", tc.name, tc.suggest, text)
		}
		if strings.ContainsAny(text, "\n\r\x1b\u202e") {
			t.Errorf("write %q: the message holds the name raw: %q", tc.name, text)
		}
	}
	// Nothing was created, in the root or beside it.
	if entries, err := os.ReadDir(root); err != nil || len(entries) != 0 {
		t.Errorf("root holds %v (%v), want nothing", entries, err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(root), "escaped.md")); err == nil {
		t.Error("a note escaped the memory folder")
	}
	// Distinct allowed names are distinct notes; ".md" and surrounding
	// space are not part of a name.
	for _, name := range []string{"a-b", "a_b", "a.b", "A-b", "a-b.md", " a-b "} {
		input, _ := json.Marshal(map[string]string{"action": "append", "name": name, "content": name})
		if res := runMemory(t, m, string(input)); res.IsError {
			t.Fatalf("append %q: %s", name, res.Text())
		}
	}
	entries, _ := os.ReadDir(filepath.Join(root, ".toolhost", "memory"))
	var files []string
	for _, e := range entries {
		files = append(files, e.Name())
	}
	if got := strings.Join(files, " "); got != "A-b.md a-b.md a.b.md a_b.md" {
		t.Errorf("notes %s", got)
	}
	if data, _ := os.ReadFile(filepath.Join(root, ".toolhost", "memory", "a-b.md")); string(data) != "a-b\na-b.md\n a-b " {
		t.Errorf("a-b.md holds %q", data)
	}
}

// Files in the notes folder whose names are no note's name (a repository
// can ship them) are not listed as notes.
func TestMemoryListLeavesOutFilesThatAreNotNotes(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, ".toolhost", "memory")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ok.md", "x\n- forged (1 bytes).md", "bidi\u202e.md", "has space.md"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("text\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	text := runMemory(t, NewMemory(workspace.New(root)), `{"action":"list"}`).Text()
	if !strings.HasPrefix(text, "1 notes in .toolhost/memory/:\n- ok (") || strings.Count(text, "\n") != 1 {
		t.Errorf("list:\n%s", text)
	}
}

func TestMemoryConcurrentAppends(t *testing.T) {
	m := NewMemory(workspace.New(t.TempDir()))
	const n = 20
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			input, _ := json.Marshal(map[string]string{"action": "append", "name": "log", "content": strings.Repeat("x", i+1)})
			if res, err := m.Execute(t.Context(), &tools.Call{Input: input}); err != nil || res.IsError {
				t.Errorf("append: %v %s", err, res.Text())
			}
		}()
	}
	wg.Wait()
	res := runMemory(t, m, `{"action":"read","name":"log"}`)
	if lines := strings.Split(res.Text(), "\n"); len(lines) != n {
		t.Errorf("%d lines after %d appends: %q", len(lines), n, res.Text())
	}
}

func TestMemoryAccess(t *testing.T) {
	root := t.TempDir()
	m := NewMemory(workspace.New(root))
	note := filepath.Join(root, ".toolhost", "memory", "a.md")
	tests := []struct {
		input      string
		read, wrte []string
	}{
		{`{"action":"read","name":"a"}`, []string{note}, nil},
		{`{"action":"append","name":"a.md","content":""}`, nil, []string{note}},
		{`{"action":"delete","name":"a"}`, nil, []string{note}},
		{`{"action":"list"}`, []string{filepath.Dir(note)}, nil},
		{`{"action":"search","query":"x"}`, []string{filepath.Dir(note)}, nil},
	}
	for _, tc := range tests {
		acc := m.Access(json.RawMessage(tc.input))
		if strings.Join(acc.ReadPaths, ",") != strings.Join(tc.read, ",") || strings.Join(acc.WritePaths, ",") != strings.Join(tc.wrte, ",") {
			t.Errorf("%s: access %+v, want read %v write %v", tc.input, acc, tc.read, tc.wrte)
		}
	}
}

// A repository can ship .toolhost/memory/ with a named pipe or a link to a
// device under a note's name: reading or appending to it is refused at
// once, never a wait for a writer or a read without end.
func TestMemoryRefusesNotesThatAreNotFiles(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, ".toolhost", "memory")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	testfifo.Make(t, filepath.Join(dir, "pipe.md"))
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.md")); err != nil {
		t.Fatal(err)
	}
	m := NewMemory(workspace.New(root))
	for _, input := range []string{
		`{"action":"read","name":"pipe"}`,
		`{"action":"append","name":"pipe","content":"x"}`,
		`{"action":"read","name":"zero"}`,
		`{"action":"append","name":"zero","content":"x"}`,
	} {
		res, err := m.Execute(t.Context(), &tools.Call{Input: json.RawMessage(input)})
		if err == nil && !res.IsError {
			t.Errorf("%s: %s", input, res.Text())
			continue
		}
		msg := fmt.Sprint(err)
		if res != nil {
			msg = res.Text()
		}
		// The link to a device leads outside the workspace, and the jail
		// refuses it before anything is opened.
		want := "not a regular file"
		if strings.Contains(input, "zero") {
			want = "leads outside"
		}
		if !strings.Contains(msg, want) {
			t.Errorf("%s: the error does not say what is wrong: %s", input, msg)
		}
	}
	if st, err := os.Lstat(filepath.Join(dir, "pipe.md")); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v %v", st, err)
	}
}
