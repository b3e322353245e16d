package data

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/workspace"
)

func TestCountItems(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want int
	}{
		{`1`, 0},
		{`[]`, 1},
		{`[1,2,3]`, 3},
		{`{"a":1,"b":[{}]}`, 6},
		{`["a,b:c[{", "\",:{[", "\\"]`, 3}, // what strings hold is not counted
	} {
		if got := countItems([]byte(tc.src)); got != tc.want {
			t.Errorf("countItems(%s) = %d, want %d", tc.src, got, tc.want)
		}
	}
}

// A document of more values than QueryJSON loads is refused before it is
// decoded, with what to use instead; one at the cap is queried.
func TestQueryJSONRefusesTooManyValues(t *testing.T) {
	root := t.TempDir()
	over := "[" + strings.Repeat("{},", maxItems/2) + "{}]"
	if err := os.WriteFile(filepath.Join(root, "many.json"), []byte(over), 0o644); err != nil {
		t.Fatal(err)
	}
	q := NewQueryJSON(workspace.New(root))
	res := runQuery(t, q, `{"file_path":"many.json","query":"length"}`)
	if !res.IsError || !strings.Contains(res.Text(), "more than 4000000 JSON values") || !strings.Contains(res.Text(), "jq --stream") {
		t.Fatalf("result %q, want the value cap with jq --stream", res.Text())
	}
	at := `"[` + strings.Repeat("1,", maxItems-2) + `1]"`
	if res := runQuery(t, q, `{"json":`+at+`,"query":"length"}`); res.IsError || strings.TrimSpace(res.Text()) != "3999999" {
		t.Fatalf("a document at the cap: %q", res.Text()[:min(200, len(res.Text()))])
	}
}
