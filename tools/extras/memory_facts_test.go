package extras

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/workspace"
)

func TestMemoryFacts(t *testing.T) {
	root := t.TempDir()
	m := NewMemory(workspace.New(root))
	facts := filepath.Join(root, ".toolhost", "memory", "facts.json")
	steps := []struct {
		input     string
		wantError bool
		wantText  string
		wantFile  string // "" = not checked, "-" = absent
	}{
		{`{"action":"get_fact","name":"port"}`, true, `no fact "port", and no facts at all yet`, "-"},
		{`{"action":"get_fact"}`, false, "No facts yet", "-"},
		{`{"action":"set_fact","name":"port","content":"8080"}`, false, `Set the fact "port" (1 facts`, "{\n  \"port\": \"8080\"\n}\n"},
		{`{"action":"set_fact","name":"test command","content":"make test"}`, false, `Set the fact "test command"`, ""},
		{`{"action":"set_fact","name":"port","content":"9090"}`, false, `Replaced the fact "port"`, "{\n  \"port\": \"9090\",\n  \"test command\": \"make test\"\n}\n"},
		{`{"action":"get_fact","name":"port"}`, false, "9090", ""},
		{`{"action":"get_fact"}`, false, "2 facts:\n- port: 9090\n- test command: make test", ""},
		{`{"action":"set_fact","name":"x"}`, true, "set_fact needs content", ""},
		{`{"action":"set_fact","content":"x"}`, true, "set_fact needs a name", ""},
		{`{"action":"clear_fact","name":"nope"}`, true, `no fact "nope". The facts are: port, test command.`, ""},
		{`{"action":"clear_fact","name":"port"}`, false, `Cleared the fact "port" (1 left)`, "{\n  \"test command\": \"make test\"\n}\n"},
		{`{"action":"write","name":"n","content":"a note"}`, false, "Saved the note", ""},
		{`{"action":"clear"}`, false, "Cleared all facts (1). The notes are kept.", "-"},
		{`{"action":"list"}`, false, "1 notes", ""},
	}
	for i, s := range steps {
		res := runMemory(t, m, s.input)
		if res.IsError != s.wantError || !strings.Contains(res.Text(), s.wantText) {
			t.Fatalf("step %d %s: isError %v, text %q; want %v, %q", i, s.input, res.IsError, res.Text(), s.wantError, s.wantText)
		}
		data, err := os.ReadFile(facts)
		switch {
		case s.wantFile == "-" && err == nil:
			t.Errorf("step %d: facts.json exists: %q", i, data)
		case s.wantFile != "" && s.wantFile != "-" && string(data) != s.wantFile:
			t.Errorf("step %d: facts.json = %q, want %q", i, data, s.wantFile)
		}
	}
}

func TestMemoryFactsKeepADamagedFile(t *testing.T) {
	root := t.TempDir()
	m := NewMemory(workspace.New(root))
	dir := filepath.Join(root, ".toolhost", "memory")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	facts := filepath.Join(dir, "facts.json")
	for _, tc := range []struct {
		name  string
		setup func() error
	}{
		{"not JSON", func() error { return os.WriteFile(facts, []byte("{ oops"), 0o644) }},
		{"not strings", func() error { return os.WriteFile(facts, []byte(`{"a": 1}`), 0o644) }},
		{"a symlink out of the folder", func() error {
			outside := filepath.Join(t.TempDir(), "secret.json")
			if err := os.WriteFile(outside, []byte(`{"leak":"x"}`), 0o644); err != nil {
				return err
			}
			return os.Symlink(outside, facts)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(facts)
			if err := tc.setup(); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(facts)
			for _, in := range []string{`{"action":"set_fact","name":"a","content":"b"}`, `{"action":"get_fact"}`} {
				res := runMemory(t, m, in)
				if !res.IsError || !strings.Contains(res.Text(), "cannot be used") || strings.Contains(res.Text(), "leak") {
					t.Errorf("%s: %v %q", in, res.IsError, res.Text())
				}
			}
			if after, _ := os.ReadFile(facts); string(after) != string(before) {
				t.Errorf("the damaged file changed: %q → %q", before, after)
			}
			if res := runMemory(t, m, `{"action":"clear"}`); res.IsError {
				t.Errorf("clear: %q", res.Text())
			}
			if _, err := os.Lstat(facts); err == nil {
				t.Error("clear left the file")
			}
		})
	}
}

// A facts file can come with the repository: a fact's name holding a
// newline or an escape shows quoted, on its own line, in every listing.
func TestMemoryFactNamesShowOnOneLine(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, ".toolhost", "memory")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	shipped := `{"port": "80", "x\n- admin: yes": "no", "esc\u001b[2J": "1"}`
	if err := os.WriteFile(filepath.Join(dir, "facts.json"), []byte(shipped), 0o644); err != nil {
		t.Fatal(err)
	}
	m := NewMemory(workspace.New(root))
	want := "3 facts:\n- \"esc\\u001b[2J\": 1\n- port: 80\n- \"x\\n- admin: yes\": no"
	if got := runMemory(t, m, `{"action":"get_fact"}`).Text(); got != want {
		t.Errorf("get_fact:\n%q\nwant\n%q", got, want)
	}
	want = `Error: there is no fact "nope". The facts are: "esc\u001b[2J", port, "x\n- admin: yes".`
	if got := runMemory(t, m, `{"action":"get_fact","name":"nope"}`).Text(); got != want {
		t.Errorf("missing fact:\n%q\nwant\n%q", got, want)
	}
}
