package search

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/workspace"
	"path/filepath"
)

func TestTree(t *testing.T) {
	dir := t.TempDir()
	makeFiles(t, dir, map[string]int{
		".gitignore":        0,
		"go.mod":            0,
		"cmd/app/main.go":   0,
		"cmd/app/deep/x.go": 0,
		"internal/a.go":     0,
		"internal/b.go":     0,
		"build/out.bin":     0,
		".git/HEAD":         0,
		"docs/.gitignore":   0,
		"docs/guide.md":     0,
		"docs/draft.md":     0,
	})
	writeFile(t, dir, ".gitignore", "build/\n")
	writeFile(t, dir, "docs/.gitignore", "draft.md\n")
	tr := NewTree(workspace.New(dir))
	tests := []struct {
		name  string
		input map[string]any
		want  string
	}{
		{"default depth", map[string]any{}, dir + `/
├── cmd/
│   └── app/
│       ├── deep/ (1 entry)
│       └── main.go
├── docs/
│   ├── .gitignore
│   └── guide.md
├── internal/
│   ├── a.go
│   └── b.go
├── .gitignore
└── go.mod

5 folders, 7 files`},
		{"depth one", map[string]any{"max_depth": 1}, dir + `/
├── cmd/ (1 entry)
├── docs/ (2 entries)
├── internal/ (2 entries)
├── .gitignore
└── go.mod

3 folders, 2 files`},
		{"sub folder", map[string]any{"path": "cmd", "max_depth": 5}, filepath.Join(dir, "cmd") + `/
└── app/
    ├── deep/
    │   └── x.go
    └── main.go

2 folders, 2 files`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, tr, tc.input)
			if res.IsError || res.Text() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", res.Text(), tc.want)
			}
		})
	}
}

func TestTreeCapsEntries(t *testing.T) {
	dir := t.TempDir()
	ages := map[string]int{}
	for i := range TreeLimit + 10 {
		ages[fmt.Sprintf("d%d/f%04d", i%2, i)] = 0
	}
	makeFiles(t, dir, ages)
	res := run(t, NewTree(workspace.New(dir)), map[string]any{})
	if n := strings.Count(res.Text(), "── "); n != TreeLimit {
		t.Errorf("%d entries shown, want %d", n, TreeLimit)
	}
	if !strings.Contains(res.Text(), "more entries not shown") {
		t.Errorf("no note: %s", res.Text()[len(res.Text())-200:])
	}
}
