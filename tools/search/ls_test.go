package search

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/wine"
	"github.com/toolhost/toolhost/workspace"
)

func TestLS(t *testing.T) {
	dir := t.TempDir()
	makeFiles(t, dir, map[string]int{"b.go": 0, "a.txt": 0, "debug.log": 0, ".env": 0, "src/x.go": 0, "node_modules/m.js": 0, "Docs/r.md": 0})
	os.Symlink("a.txt", filepath.Join(dir, "link"))
	os.Symlink("src", filepath.Join(dir, "srclink"))
	os.Mkdir(filepath.Join(dir, "empty"), 0o755)
	ls := NewLS(workspace.New(dir))
	tests := []struct {
		name    string
		input   map[string]any
		want    string
		isError bool
	}{
		{"folders first then files", map[string]any{"path": dir},
			dir + "/\n  Docs/\n  empty/\n  node_modules/\n  src/\n  srclink/ -> src\n  .env\n  a.txt\n  b.go\n  debug.log\n  link -> a.txt", false},
		{"ignore patterns", map[string]any{"path": ".", "ignore": []string{"*.log", "node_modules", ".*", "*link"}},
			dir + "/\n  Docs/\n  empty/\n  src/\n  a.txt\n  b.go", false},
		{"empty folder", map[string]any{"path": "empty"}, filepath.Join(dir, "empty") + "/\n(empty)", false},
		{"a file", map[string]any{"path": "a.txt"}, "is a file", true},
		{"missing", map[string]any{"path": "nope"}, "does not exist", true},
		{"bad pattern", map[string]any{"path": ".", "ignore": []string{"[x"}}, "not a valid glob", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if strings.Contains(tc.want, " -> ") {
				wine.Skip(t, wine.Links)
			}
			res := run(t, ls, tc.input)
			if res.IsError != tc.isError || tc.isError && !strings.Contains(res.Text(), tc.want) || !tc.isError && res.Text() != tc.want {
				t.Errorf("got (error %v)\n%s\nwant\n%s", res.IsError, res.Text(), tc.want)
			}
		})
	}
}

func TestLSCapsEntries(t *testing.T) {
	dir := t.TempDir()
	ages := map[string]int{}
	for i := range LSLimit + 5 {
		ages[fmt.Sprintf("f%04d", i)] = 0
	}
	makeFiles(t, dir, ages)
	res := run(t, NewLS(workspace.New(dir)), map[string]any{"path": dir})
	lines := strings.Split(res.Text(), "\n")
	if len(lines) != LSLimit+2 || !strings.Contains(lines[len(lines)-1], "5 more entries not shown") {
		t.Errorf("%d lines, last %q", len(lines), lines[len(lines)-1])
	}
}
