package settings

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestDuplicateKeys(t *testing.T) {
	tests := []struct {
		doc  string
		want []string
	}{
		{`{"a": 1, "b": 2}`, nil},
		{`{"a": 1, "a": 2}`, []string{"a"}},
		{`{"permissions": {"deny": ["Bash"]}, "permissions": {}}`, []string{"permissions"}},
		{`{"hooks": {"PreToolUse": [], "PreToolUse": []}}`, []string{"hooks.PreToolUse"}},
		{`{"x": [{"k": 1, "k": 2}, {"k": 3}]}`, []string{"x[0].k"}},
		{`{"x": [{"k": 1}, {"k": 3}], "y": {"k": 1}}`, nil},
		{`{"a": 1, "a": 2, "a": 3}`, []string{"a"}},
		{`[1, 2, 3]`, nil},
	}
	for _, tc := range tests {
		if got := DuplicateKeys([]byte(tc.doc)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("DuplicateKeys(%s) = %q, want %q", tc.doc, got, tc.want)
		}
	}
}

// TestStoreReportsWhatDecodingDrops: a settings file with a byte-order
// mark applies (its deny rule included), and keys written twice or bytes
// that are not UTF-8 are reported instead of passing in silence.
func TestStoreReportsWhatDecodingDrops(t *testing.T) {
	tests := []struct {
		name    string
		project string
		wantKey string
		wantMsg string
		check   func(t *testing.T, s *Settings)
	}{
		{
			name:    "byte-order mark",
			project: "\ufeff" + `{"permissions": {"deny": ["Bash(rm:*)"]}}`,
			check: func(t *testing.T, s *Settings) {
				if !slices.Contains(s.Permissions.Deny, "Bash(rm:*)") {
					t.Errorf("deny = %q: want the rule of the file that starts with a BOM", s.Permissions.Deny)
				}
			},
		},
		{
			name:    "key written twice",
			project: `{"permissions": {"deny": ["Bash(rm:*)"]}, "permissions": {"ask": ["Bash(git push:*)"]}}`,
			wantKey: "permissions",
			wantMsg: "appears more than once",
		},
		{
			name:    "bytes that are not UTF-8",
			project: "{\"permissions\": {\"deny\": [\"Read(secret\xff)\"]}}",
			wantMsg: "not valid UTF-8",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tt := newTree(t)
			writeFile(t, tt.project(), tc.project)
			st := tt.store("")
			problems := st.Problems()
			if tc.wantMsg == "" && len(problems) > 0 {
				t.Errorf("problems = %+v, want none", problems)
			}
			if tc.wantMsg != "" {
				found := false
				for _, p := range problems {
					if p.File == tt.project() && p.Key == tc.wantKey && strings.Contains(p.Message, tc.wantMsg) {
						found = true
					}
				}
				if !found {
					t.Errorf("problems = %+v, want one for key %q saying %q", problems, tc.wantKey, tc.wantMsg)
				}
			}
			if tc.check != nil {
				tc.check(t, st.Current())
			}
		})
	}
}
