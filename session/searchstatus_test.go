package session

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/execjail"
)

// toolhost/status says which engine Grep searches folders with: ripgrep
// where it can be jailed, else Go, and why.
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
	want := "go, jailed by os.Root ("
	if st := execjail.Check(context.Background()); st.Err == nil {
		want = "ripgrep, jailed by Landlock"
	}
	if got := decoded.Search.GrepFolders; !strings.HasPrefix(got, want) {
		t.Errorf("search.grepFolders = %q in %s", got, raw)
	}
}
