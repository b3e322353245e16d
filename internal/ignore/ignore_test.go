package ignore

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// writeTree creates files (path → content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// walkRel returns the sorted relative paths Walk reports.
func walkRel(t *testing.T, root string, opts Options) []string {
	t.Helper()
	var mu sync.Mutex
	var got []string
	err := Walk(context.Background(), root, opts, func(f File) error {
		mu.Lock()
		got = append(got, f.Rel)
		mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	return got
}

func run(t *testing.T, dir string, name string, args ...string) []string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l != "" {
			lines = append(lines, filepath.ToSlash(l))
		}
	}
	slices.Sort(lines)
	return lines
}

// ignoreCases are trees whose ignore files exercise nesting, negation,
// anchoring, "**", folder-only patterns and escapes.
var ignoreCases = []struct {
	name  string
	files map[string]string
}{
	{"nested and negated", map[string]string{
		".gitignore":        "*.log\n!keep.log\nbuild/\n",
		"a.log":             "x",
		"keep.log":          "x",
		"src/main.go":       "x",
		"src/.gitignore":    "gen_*.go\n/local.txt\n",
		"src/gen_a.go":      "x",
		"src/local.txt":     "x",
		"src/sub/local.txt": "x",
		"build/out.bin":     "x",
		"src/build/x.go":    "x",
		"deep/er/a.log":     "x",
	}},
	{"anchors and double stars", map[string]string{
		".gitignore":          "/top.txt\ndocs/**/*.tmp\n**/cache\nfoo/**\n# comment\n\n",
		"top.txt":             "x",
		"sub/top.txt":         "x",
		"docs/a/b/c.tmp":      "x",
		"docs/c.tmp":          "x",
		"docs/keep.md":        "x",
		"x/y/cache/z.txt":     "x",
		"cache/z.txt":         "x",
		"foo/bar/baz.txt":     "x",
		"foobar/baz.txt":      "x",
		".hidden/visible.txt": "x",
	}},
	{"negated folder keeps other rules for its files", map[string]string{
		".gitignore":   "*.txt\n!logs\nout\n!out/keep.md\n",
		"logs/a.txt":   "x",
		"logs/b.md":    "x",
		"out/keep.md":  "x",
		"top.txt":      "x",
		"x/logs/c.txt": "x",
	}},
	{"folder only and escapes", map[string]string{
		".gitignore":    "logs/\n\\#hash.txt\nspace\\ \n",
		"logs/a.txt":    "x",
		"x/logs":        "a file named logs is kept",
		"#hash.txt":     "x",
		"plain.txt":     "x",
		"info/data.txt": "x",
	}},
}

// TestWalkAgreesWithGit checks the kept files against git's own list of
// untracked, not ignored files.
func TestWalkAgreesWithGit(t *testing.T) {
	for _, tc := range ignoreCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, tc.files)
			run(t, dir, "git", "init", "-q")
			want := run(t, dir, "git", "ls-files", "--others", "--exclude-standard")
			got := walkRel(t, dir, Options{})
			if !slices.Equal(got, want) {
				t.Errorf("walk kept\n%v\ngit keeps\n%v", got, want)
			}
		})
	}
}

// TestWalkAgreesWithRipgrep checks the kept files against rg --files,
// including .ignore files and ignore files above the walk root.
func TestWalkAgreesWithRipgrep(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("rg is not installed")
	}
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".gitignore":         "*.log\nvendor/\n",
		".ignore":            "!special.log\nscratch/\n",
		"special.log":        "x",
		"other.log":          "x",
		"vendor/v.go":        "x",
		"scratch/s.txt":      "x",
		"pkg/a.go":           "x",
		"pkg/b.log":          "x",
		"pkg/.rgignore":      "*.tmp\n",
		"pkg/c.tmp":          "x",
		"pkg/inner/d.go":     "x",
		"pkg/inner/e.log":    "x",
		"pkg/inner/.hidden":  "x",
		"pkg/.git/HEAD":      "x",
		"nested/.git/config": "x",
		"nested/n.log":       "x",
	})
	for _, root := range []string{dir, filepath.Join(dir, "pkg"), filepath.Join(dir, "pkg", "inner")} {
		want := run(t, root, rg, "--files", "--no-config", "--hidden", "--no-require-git", "-g", "!.git")
		got := walkRel(t, root, Options{})
		if !slices.Equal(got, want) {
			t.Errorf("root %s: walk kept\n%v\nrg keeps\n%v", root, got, want)
		}
	}
}

func TestWalkOverrideAndNoIgnore(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".gitignore":  "gen.go\nskip/\n",
		"gen.go":      "x",
		"main.go":     "x",
		"skip/s.go":   "x",
		"drop/d.go":   "x",
		".git/config": "x",
	})
	override := func(rel, name string, isDir bool) Verdict {
		switch {
		case isDir && name == "drop":
			return Exclude
		case !isDir && name == "gen.go":
			return Include
		}
		return NoVerdict
	}
	tests := []struct {
		name string
		opts Options
		want []string
	}{
		{"rules only", Options{}, []string{".gitignore", "drop/d.go", "main.go"}},
		{"override beats rules", Options{Override: override}, []string{".gitignore", "gen.go", "main.go"}},
		{"no ignore", Options{NoIgnore: true}, []string{".gitignore", "drop/d.go", "gen.go", "main.go", "skip/s.go"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := walkRel(t, dir, tc.opts); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestWalkStopsAndCancels(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 200 {
		files[filepath.Join("d", string(rune('a'+i%26)), strings.Repeat("f", 1+i/26))] = "x"
	}
	writeTree(t, dir, files)

	var mu sync.Mutex
	seen := 0
	err := Walk(context.Background(), dir, Options{}, func(File) error {
		mu.Lock()
		defer mu.Unlock()
		seen++
		return ErrStop
	})
	if err != nil || seen == 0 || seen > 2 {
		t.Errorf("ErrStop: err %v after %d visits, want nil after at most one per worker", err, seen)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = Walk(ctx, dir, Options{}, func(File) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled walk returned %v", err)
	}
}

func TestWalkFileRoot(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{".gitignore": "*.log\n", "x.log": "x"})
	got := walkRel(t, filepath.Join(dir, "x.log"), Options{})
	if !slices.Equal(got, []string{"x.log"}) {
		t.Errorf("a file named as the root is searched even when ignored; got %v", got)
	}
}

// A walk closes every folder it opened, however it ends: to the end, by
// ErrStop, by a failing visit or by cancellation (a server walks for days).
func TestWalkClosesItsFolders(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 300 {
		files[filepath.Join(string(rune('a'+i%7)), string(rune('a'+i%5)), string(rune('a'+i%3)), strings.Repeat("f", 1+i/20))] = "x"
	}
	writeTree(t, dir, files)
	openFDs := func() int { return openHandles(t) }
	before := openFDs()
	failure := errors.New("visit failed")
	ctx, cancel := context.WithCancel(context.Background())
	for name, visit := range map[string]func(File) error{
		"whole":  func(File) error { return nil },
		"stop":   func(File) error { return ErrStop },
		"fail":   func(File) error { return failure },
		"cancel": func(File) error { cancel(); return nil },
	} {
		walkCtx := context.Background()
		if name == "cancel" {
			walkCtx = ctx
		}
		for range 20 {
			_ = Walk(walkCtx, dir, Options{}, visit)
		}
		if after := openFDs(); after != before {
			t.Errorf("%s: %d descriptors open after the walks, %d before", name, after, before)
		}
	}
}
