package search

import (
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/internal/ignore"
	"github.com/toolhost/toolhost/tools/search/searchtest"
	"github.com/toolhost/toolhost/workspace"
)

// benchFiles is the size of the benchmarks' tree (SEARCH_BENCH_FILES
// overrides it).
func benchFiles() int {
	if n, err := strconv.Atoi(os.Getenv("SEARCH_BENCH_FILES")); err == nil && n > 0 {
		return n
	}
	return 5000
}

var (
	benchOnce sync.Once
	benchRoot string
)

// benchTree generates one tree for all benchmarks of the run.
func benchTree(b *testing.B) string {
	benchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "search-bench-")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := searchtest.Generate(dir, benchFiles()); err != nil {
			b.Fatal(err)
		}
		benchRoot = dir
	})
	return benchRoot
}

func TestMain(m *testing.M) {
	// Run as the fake rg of TestGrepFallsBackToGoWithoutLandlock: leave
	// the mark that says it ran, print nothing, fail. A Go program and not
	// a script, so that it runs on Windows too.
	if mark := os.Getenv(fakeRgMarkVar); mark != "" {
		os.WriteFile(mark, nil, 0o600)
		os.Exit(1)
	}
	// The tests that compare the backends, or test rg's jail, need rg to
	// search their small folders; grepsmall_test.go sets the bound itself.
	smallFolder = searchBudget{}
	code := m.Run()
	if benchRoot != "" {
		os.RemoveAll(benchRoot)
	}
	os.Exit(code)
}

// runDirect runs a command and reads all its output, as the tool does.
func runDirect(b *testing.B, argv ...string) {
	cmd := exec.Command(argv[0], argv[1:]...)
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, out)
	cmd.Wait()
}

// BenchmarkGrep compares Grep through ripgrep, Grep in Go, and rg run
// directly with the same flags: the ratio of the first to the last is the
// tool's overhead.
func BenchmarkGrep(b *testing.B) {
	rg := requireRipgrep(b)
	root := benchTree(b)
	ws := workspace.New(root)
	queries := []struct {
		name  string
		input map[string]any
		mode  []string
	}{
		{"files", map[string]any{"pattern": "NewServer"}, []string{"--files-with-matches", "--null"}},
		{"content", map[string]any{"pattern": `func Retry\w+`, "output_mode": "content"}, []string{"--json"}},
		{"count-i", map[string]any{"pattern": "errorhandler", "-i": true, "output_mode": "count"}, []string{"--count", "--with-filename", "--null"}},
	}
	for _, q := range queries {
		for _, backend := range []struct{ name, rg string }{{"ripgrep", rg}, {"go", ""}} {
			g := NewGrep(ws, backend.rg)
			b.Run(q.name+"/tool-"+backend.name, func(b *testing.B) {
				for b.Loop() {
					run(b, g, q.input)
				}
			})
		}
		gq, _ := NewGrep(ws, rg).query(grepInput(q.input))
		argv := append([]string{rg}, (&ripgrep{path: rg}).args(gq)...)
		b.Run(q.name+"/rg-direct", func(b *testing.B) {
			for b.Loop() {
				runDirect(b, argv...)
			}
		})
	}
}

// grepInput converts a test input map to GrepInput.
func grepInput(m map[string]any) *GrepInput {
	in := &GrepInput{Pattern: m["pattern"].(string)}
	if v, ok := m["output_mode"].(string); ok {
		in.OutputMode = v
	}
	if v, ok := m["-i"].(bool); ok {
		in.IgnoreCase = v
	}
	return in
}

// BenchmarkGlob compares Glob with rg --files --glob and a bare walk.
func BenchmarkGlob(b *testing.B) {
	rg := requireRipgrep(b)
	root := benchTree(b)
	g := NewGlob(workspace.New(root))
	b.Run("tool", func(b *testing.B) {
		for b.Loop() {
			run(b, g, map[string]any{"pattern": "**/*.go"})
		}
	})
	b.Run("rg-files", func(b *testing.B) {
		for b.Loop() {
			runDirect(b, rg, "--no-config", "--hidden", "--no-ignore", "--files", "--glob", "*.go", "--glob", "!.git", root)
		}
	})
	b.Run("walk-only", func(b *testing.B) {
		for b.Loop() {
			ignore.Walk(b.Context(), root, ignore.Options{NoIgnore: true}, func(ignore.File) error { return nil })
		}
	})
}
