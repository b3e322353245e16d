package workspace

import (
	"os"
	"path/filepath"
	"testing"
)

// White space around a path is dropped, unless a file by the path as given
// exists: a listing shows such a name quoted, and passing it back reaches
// it, with or without the quotes.
func TestResolveKeepsWhiteSpaceOfNamesThatExist(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"trailing.txt ", "newline.txt\n", "cr.txt\r", " leading.txt", "dir\n", "a\nb.txt", `"literal"`} {
		if err := os.WriteFile(filepath.Join(root, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws := New(root)
	tests := []struct{ in, want string }{
		{"trailing.txt ", "trailing.txt "},
		{"newline.txt\n", "newline.txt\n"},
		{"cr.txt\r", "cr.txt\r"},
		{" leading.txt", " leading.txt"},
		{filepath.Join(root, "dir\n"), "dir\n"},
		{"  missing.txt\n", "missing.txt"},
		{"newline.txt", "newline.txt"},
		{" trailing.txt", "trailing.txt"},
		// A name copied from a listing with its quotes.
		{`"a\nb.txt"`, "a\nb.txt"},
		{` "` + root + `/a\nb.txt"` + "\n", "a\nb.txt"},
		{`"newline.txt\n"`, "newline.txt\n"},
		// A name that is quoted itself, or a quoted name of nothing, is
		// the path as given.
		{`"literal"`, `"literal"`},
		{`"missing\n"`, `"missing\n"`},
		{`"a\nb.txt`, `"a\nb.txt`},
	}
	for _, tc := range tests {
		got, err := ws.Resolve(tc.in)
		if want := filepath.Join(root, tc.want); err != nil || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", tc.in, got, err, want)
		}
	}
	if _, err := ws.Resolve(" \n"); err != ErrEmptyPath {
		t.Errorf("Resolve of white space: %v, want ErrEmptyPath", err)
	}
}
