package settings

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestAppendUniqueKeepsOrderAndDropsDuplicates(t *testing.T) {
	got := appendUnique([]any{"a", "b"}, []any{"b", "c", "a", "c", "d"}, true)
	if want := []any{"a", "b", "c", "d"}; !reflect.DeepEqual(got, want) {
		t.Errorf("dedupe: %v, want %v", got, want)
	}
	got = appendUnique([]any{"a"}, []any{"a"}, false)
	if want := []any{"a", "a"}; !reflect.DeepEqual(got, want) {
		t.Errorf("no dedupe: %v, want %v", got, want)
	}
	got = appendUnique(nil, []any{1.0, 1.0, "x"}, true)
	if want := []any{1.0, "x"}; !reflect.DeepEqual(got, want) {
		t.Errorf("other values: %v, want %v", got, want)
	}
}

// BenchmarkStoreManyDenyRules loads a folder whose settings file holds as
// many deny rules as the 4 MiB cap allows (an untrusted folder may add deny
// rules). The merge used to compare every rule with every other: 360,000
// rules took 248 s at each start; now it is linear.
func BenchmarkStoreManyDenyRules(b *testing.B) {
	rules := make([]string, 300_000)
	for i := range rules {
		rules[i] = fmt.Sprintf("R(%x)", i)
	}
	raw, _ := json.Marshal(map[string]any{"permissions": map[string]any{"deny": rules}})
	tt := testTree{user: filepath.Join(b.TempDir(), "none.json"), root: b.TempDir()}
	if err := os.MkdirAll(filepath.Dir(tt.project()), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(tt.project(), raw, 0o644); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		s := tt.store("")
		if n := len(s.Current().Permissions.Deny); n != len(rules) {
			b.Fatalf("%d deny rules, want %d", n, len(rules))
		}
	}
}
