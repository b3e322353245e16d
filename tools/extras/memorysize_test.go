package extras

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/workspace"
)

// TestMemoryRefusesNotesItCouldNotReadBack: a write, or an append, that
// would make a note larger than a read takes is refused and leaves the
// note as it was, so every note stays readable, appendable and searchable.
func TestMemoryRefusesNotesItCouldNotReadBack(t *testing.T) {
	m := NewMemory(workspace.New(t.TempDir()))
	input := func(action, content string) string {
		b, _ := json.Marshal(map[string]string{"action": action, "name": "log", "content": content})
		return string(b)
	}
	if res := runMemory(t, m, input("write", strings.Repeat("x", maxNoteBytes+1))); !res.IsError || !strings.Contains(res.Text(), "at most 16 MiB") {
		t.Errorf("oversized write: %.200q, want a refusal", res.Text())
	}
	if res := runMemory(t, m, input("write", strings.Repeat("x", maxNoteBytes-10))); res.IsError {
		t.Fatalf("write under the cap: %s", res.Text())
	}
	if res := runMemory(t, m, input("append", strings.Repeat("y", 100))); !res.IsError {
		t.Errorf("append past the cap: %.200q, want a refusal", res.Text())
	}
	res := runMemory(t, m, `{"action":"read","name":"log"}`)
	if res.IsError || strings.Contains(res.Text(), "y") {
		t.Errorf("the note after a refused append: %.200q, want it readable and unchanged", res.Text())
	}
}
