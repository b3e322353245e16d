package session

import (
	"encoding/json"
	"strings"
	"testing"
)

// toolhost/status says which engine Grep searches folders with (this test
// binary cannot serve the jail helper, so: Go, and why).
func TestStatusSaysHowFoldersAreSearched(t *testing.T) {
	s, _ := newTestSession(t, "")
	raw, _ := json.Marshal(s.Status())
	var decoded struct {
		Search struct {
			GrepFolders string `json:"grepFolders"`
		} `json:"search"`
	}
	if err := json.Unmarshal(raw, &decoded); err != nil {
		t.Fatal(err)
	}
	if got := decoded.Search.GrepFolders; !strings.HasPrefix(got, "go, jailed by os.Root (") {
		t.Errorf("search.grepFolders = %q in %s", got, raw)
	}
}
