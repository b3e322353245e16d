package extras

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

// A memory folder that is a link to elsewhere (a repository can ship one)
// is never read, written, listed or emptied: notes live in the workspace.
func TestMemoryFolderLinkedOutsideIsRefused(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, dir := range []string{filepath.Join(root, ".toolhost"), outside} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), []byte("SECRET-OUTSIDE\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, filepath.FromSlash(MemoryDir))); err != nil {
		t.Fatal(err)
	}
	m := NewMemory(workspace.New(root))
	for _, input := range []string{
		`{"action":"read","name":"secret"}`,
		`{"action":"list"}`,
		`{"action":"search","query":"secret"}`,
		`{"action":"write","name":"planted","content":"x"}`,
		`{"action":"append","name":"secret","content":"x"}`,
		`{"action":"delete","name":"secret"}`,
		`{"action":"set_fact","name":"k","content":"v"}`,
	} {
		res, err := m.Execute(t.Context(), &tools.Call{Input: json.RawMessage(input)})
		if err == nil && strings.Contains(res.Text(), "SECRET-OUTSIDE") {
			t.Errorf("%s showed a file outside: %s", input, res.Text())
		}
	}
	entries, err := os.ReadDir(outside)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("the folder outside was changed: %v", entries)
	}
	if data, err := os.ReadFile(filepath.Join(outside, "secret.md")); err != nil || string(data) != "SECRET-OUTSIDE\n" {
		t.Errorf("the file outside was changed: %q %v", data, err)
	}
}
