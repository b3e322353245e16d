package search

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/toolhost/toolhost/workspace"
	"runtime"
)

// makeFiles writes files (relative path → age in minutes) under dir, so the
// newest-first order is known.
func makeFiles(t *testing.T, dir string, ages map[string]int) {
	t.Helper()
	now := time.Now()
	for rel, age := range ages {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(rel), 0o644); err != nil {
			t.Fatal(err)
		}
		mt := now.Add(-time.Duration(age) * time.Minute)
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
}

func TestGlob(t *testing.T) {
	dir := t.TempDir()
	makeFiles(t, dir, map[string]int{
		".gitignore":       50,
		"main.go":          3,
		"old.go":           40,
		"pkg/a.go":         1,
		"pkg/deep/b.go":    2,
		"pkg/deep/c.ts":    4,
		"gen/skip.go":      0,
		"pkg/skip.log":     0,
		".hidden/h.go":     5,
		".git/hooks/x.go":  0,
		"web/app.tsx":      6,
		"web/app.ts":       7,
		"web/sub/page.tsx": 8,
	})
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("gen/\n*.log\n"), 0o644)
	g := NewGlob(workspace.New(dir))
	abs := func(rels ...string) string {
		for i, r := range rels {
			rels[i] = filepath.Join(dir, filepath.FromSlash(r))
		}
		return strings.Join(rels, "\n")
	}
	tests := []struct {
		name  string
		input map[string]any
		want  string
	}{
		// Claude Code passes the pattern to ripgrep with --no-ignore
		// --hidden: ignored and hidden files are found.
		{"all go files newest first", map[string]any{"pattern": "**/*.go"},
			abs("gen/skip.go", "pkg/a.go", "pkg/deep/b.go", "main.go", ".hidden/h.go", "old.go")},
		// ripgrep's --glob: a pattern without a slash matches the name at any depth.
		{"no slash matches at any depth", map[string]any{"pattern": "*.go"},
			abs("gen/skip.go", "pkg/a.go", "pkg/deep/b.go", "main.go", ".hidden/h.go", "old.go")},
		{"ignored files included", map[string]any{"pattern": "*.log"}, abs("pkg/skip.log")},
		{"a slash anchors the pattern", map[string]any{"pattern": "pkg/*.go"}, abs("pkg/a.go")},
		{"fixed leading folder", map[string]any{"pattern": "pkg/**/*.go"}, abs("pkg/a.go", "pkg/deep/b.go")},
		{"braces", map[string]any{"pattern": "web/**/*.{ts,tsx}"}, abs("web/app.tsx", "web/app.ts", "web/sub/page.tsx")},
		{"relative path", map[string]any{"pattern": "*.tsx", "path": "web"}, abs("web/app.tsx", "web/sub/page.tsx")},
		{"absolute path", map[string]any{"pattern": "**/*.ts", "path": filepath.Join(dir, "pkg")}, abs("pkg/deep/c.ts")},
		{"absolute pattern", map[string]any{"pattern": filepath.Join(dir, "pkg", "deep", "*")}, abs("pkg/deep/b.go", "pkg/deep/c.ts")},
		{"missing leading folder", map[string]any{"pattern": "nope/**/*.go"}, "No files match nope/**/*.go in " + dir + "."},
		{"no match", map[string]any{"pattern": "**/*.rs"}, "No files match **/*.rs in " + dir + "."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, g, tc.input)
			if res.IsError || res.Text() != tc.want {
				t.Errorf("got (error %v)\n%s\nwant\n%s", res.IsError, res.Text(), tc.want)
			}
		})
	}
}

func TestGlobCapsResults(t *testing.T) {
	dir := t.TempDir()
	ages := map[string]int{}
	for i := range GlobLimit + 23 {
		ages[fmt.Sprintf("f%03d.txt", i)] = i
	}
	makeFiles(t, dir, ages)
	res := run(t, NewGlob(workspace.New(dir)), map[string]any{"pattern": "*.txt"})
	lines := strings.Split(res.Text(), "\n")
	if len(lines) != GlobLimit+1 {
		t.Fatalf("got %d lines, want %d paths and a note", len(lines), GlobLimit)
	}
	if lines[0] != filepath.Join(dir, "f000.txt") || lines[GlobLimit-1] != filepath.Join(dir, fmt.Sprintf("f%03d.txt", GlobLimit-1)) {
		t.Errorf("not the newest %d first: %s ... %s", GlobLimit, lines[0], lines[GlobLimit-1])
	}
	note := lines[GlobLimit]
	if !strings.Contains(note, "of 123 matching files") || !strings.Contains(note, "23 more") || !strings.Contains(note, "Narrow the pattern") {
		t.Errorf("note %q", note)
	}
	out := res.Structured.(GlobOutput)
	if !out.Truncated || out.NumFiles != GlobLimit || out.TotalMatches != GlobLimit+23 {
		t.Errorf("structured %+v", out)
	}
}

func TestGlobErrors(t *testing.T) {
	dir := t.TempDir()
	makeFiles(t, dir, map[string]int{"a.txt": 1})
	g := NewGlob(workspace.New(dir))
	tests := []struct {
		name  string
		input map[string]any
		want  string
	}{
		{"bad pattern", map[string]any{"pattern": "[a-"}, "not a valid glob"},
		{"empty pattern", map[string]any{"pattern": " "}, "pattern is empty"},
		{"missing folder", map[string]any{"pattern": "*", "path": "nope"}, "does not exist"},
		{"file as folder", map[string]any{"pattern": "*", "path": "a.txt"}, "is a file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, g, tc.input)
			if !res.IsError || !strings.Contains(res.Text(), tc.want) {
				t.Errorf("got %q, want an error mentioning %q", res.Text(), tc.want)
			}
		})
	}
}

// TestPathMatcherAgreesWithDoublestar checks the shortcuts against the
// general matcher.
func TestPathMatcherAgreesWithDoublestar(t *testing.T) {
	patterns := []string{"**/*.go", "**/*", "**/main.go", "**/*_test.go", "**/*.{ts,tsx}", "**/[a-c]*.txt", "*.go", "src/**/*.go", "**/a/*.go"}
	paths := []string{"main.go", "a/main.go", "a/b/c_test.go", "x.ts", "d/y.tsx", "b.txt", "d/e.txt", "src/x/y.go", "a/.go", "a/x.go", ".go", "z/a/q.go"}
	for _, p := range patterns {
		m := newPathMatcher(p)
		for _, rel := range paths {
			want, _ := doublestar.Match(p, rel)
			if got := m.match(rel); got != want {
				t.Errorf("%s on %s: %v, doublestar says %v", p, rel, got, want)
			}
		}
	}
}

func TestGlobAccess(t *testing.T) {
	g := NewGlob(workspace.New(t.TempDir()))
	// An absolute folder as this system writes it: "/etc" has no drive on
	// Windows, so it is not absolute there.
	abs := "/etc"
	if runtime.GOOS == "windows" {
		abs = "C:/etc"
	}
	tests := []struct {
		input string
		want  string
	}{
		{`{"pattern":"**/*.go"}`, "."},
		{`{"pattern":"**/*.go","path":"src"}`, "src"},
		{`{"pattern":"cmd/**/*.go","path":"src"}`, "src/cmd"},
		{`{"pattern":"../other/**/*.go"}`, "../other"},
		{`{"pattern":"` + abs + `/*.conf","path":"src"}`, abs},
	}
	for _, tc := range tests {
		a := g.Access([]byte(tc.input))
		if len(a.ReadPaths) != 1 || a.ReadPaths[0] != filepath.FromSlash(tc.want) {
			t.Errorf("%s: %v, want [%s]", tc.input, a.ReadPaths, tc.want)
		}
	}
}
