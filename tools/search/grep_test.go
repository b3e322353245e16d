package search

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testfifo"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

// TestGrepBackendsAgree runs ripgrep and the Go implementation on the same
// generated tree and requires the same result text for every mode and
// option.
func TestGrepBackendsAgree(t *testing.T) {
	rgPath := requireRipgrep(t)
	ws, _ := generatedWorkspace(t, 600)
	rg, native := NewGrep(ws, rgPath), NewGrep(ws, "")
	if rg.Backend() != "ripgrep" || native.Backend() != "go" {
		t.Fatalf("backends: %s, %s", rg.Backend(), native.Backend())
	}
	type in = map[string]any
	cases := []in{
		{"pattern": "TODO"},
		{"pattern": "TODO", "output_mode": "count"},
		{"pattern": "TODO", "output_mode": "content"},
		{"pattern": `func\s+New\w+`, "output_mode": "content"},
		{"pattern": "errorhandler", "-i": true, "output_mode": "count"},
		{"pattern": "ERRORhandler", "-i": true},
		{"pattern": `^beta|alpha$`, "output_mode": "content", "head_limit": 0},
		{"pattern": "server", "glob": "*.go", "output_mode": "count"},
		{"pattern": "server", "glob": "*.{ts,js} *.md", "output_mode": "count"},
		{"pattern": "server", "glob": "!*.txt", "head_limit": 0},
		{"pattern": "TODO", "glob": "*.log"},
		{"pattern": "server", "glob": "**/pkg001/*.go", "output_mode": "count"},
		{"pattern": "server", "glob": "src/mod01/** !*.md", "output_mode": "count"},
		{"pattern": "server", "glob": "/*.txt", "output_mode": "count"},
		{"pattern": "server", "glob": "**/*.ts", "output_mode": "count"},
		{"pattern": "ignored", "glob": "*.go", "output_mode": "content"},
		{"pattern": "server", "type": "py", "output_mode": "count"},
		{"pattern": "server", "type": "js", "output_mode": "count"},
		{"pattern": "alpha", "path": "context", "output_mode": "content", "-C": 1},
		{"pattern": "alpha", "path": "context", "output_mode": "content", "-A": 2, "-n": false},
		{"pattern": "alpha", "path": "context", "output_mode": "content", "-B": 3},
		{"pattern": "alpha", "path": "context/ctx.txt", "output_mode": "content", "context": 4},
		{"pattern": "TODO", "output_mode": "content", "-C": 1, "glob": "*.md"},
		{"pattern": `a[a-z]+a`, "output_mode": "content", "-o": true, "type": "go"},
		{"pattern": "server", "output_mode": "content", "path": "long"},
		{"pattern": "TODO", "output_mode": "content", "path": "crlf"},
		{"pattern": `client\r?$`, "output_mode": "content", "path": "crlf"},
		{"pattern": "ünïcode", "output_mode": "content"},
		{"pattern": `Gr\w+e|\w+code`, "output_mode": "content", "-o": true},
		{"pattern": `[\w,]+\s\S+`, "output_mode": "content", "-o": true, "path": "unicode"},
		{"pattern": `\d+`, "output_mode": "count", "path": "unicode"},
		{"pattern": `[^\w\s]+`, "output_mode": "content", "-o": true, "path": "unicode"},
		{"pattern": `[[:alpha:]]+üß`, "output_mode": "content"},
		{"pattern": `^server|^TODO|beta`, "output_mode": "content", "path": "bom"},
		{"pattern": `^\W|nothing-matches`, "output_mode": "count", "path": "bom"},
		{"pattern": "errorhandler", "-i": true, "output_mode": "content", "path": "unicode"},
		{"pattern": "kelvin", "-i": true, "output_mode": "content"},
		{"pattern": "long sign", "-i": true, "output_mode": "content"},
		{"pattern": "LONG \\w+", "-i": true, "output_mode": "content", "-o": true},
		{"pattern": `struct \{\n\s+Name`, "multiline": true, "output_mode": "content"},
		{"pattern": `struct \{.*?\}`, "multiline": true, "output_mode": "count"},
		{"pattern": `Retry int\n\}`, "multiline": true},
		{"pattern": "server", "output_mode": "content", "offset": 40, "head_limit": 25},
		{"pattern": "server", "offset": 10, "head_limit": 5},
		{"pattern": "server", "output_mode": "count", "offset": 3, "head_limit": 4},
		{"pattern": "nothing-matches-this-zzz"},
		{"pattern": "nothing-matches-this-zzz", "output_mode": "content"},
		{"pattern": "TODO", "path": "nonewline.txt", "output_mode": "content"},
		{"pattern": "x*", "path": "context", "output_mode": "count"},
		{"pattern": "TODO", "path": "debug.log", "output_mode": "content"},
	}
	for _, c := range cases {
		raw, _ := json.Marshal(c)
		t.Run(string(raw), func(t *testing.T) {
			want := run(t, rg, c)
			got := run(t, native, c)
			if want.IsError || got.IsError {
				t.Fatalf("errors: rg %q, go %q", want.Text(), got.Text())
			}
			if none := strings.Contains(string(raw), "nothing-matches"); none != strings.HasPrefix(want.Text(), "No ") {
				t.Errorf("the case should have matches unless it says nothing-matches; rg said %q", want.Text())
			}
			t.Logf("%d bytes, %d lines", len(want.Text()), strings.Count(want.Text(), "\n"))
			if got.Text() != want.Text() {
				t.Errorf("go backend differs from ripgrep\n--- rg\n%s\n--- go\n%s", want.Text(), got.Text())
			}
		})
	}
}

// TestGrepOutput checks the output of each mode on a small tree, with both
// backends.
func TestGrepOutput(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.go":        "package a\n// TODO one\nfunc A() {}\n// TODO two\n",
		"b.txt":       "x\ny\nTODO three\nz\n",
		"sub/c.go":    "nothing here\n",
		".gitignore":  "ignored.txt\n",
		"ignored.txt": "TODO hidden by gitignore\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
	}
	// b.txt is newer than a.go.
	a, b := filepath.Join(dir, "a.go"), filepath.Join(dir, "b.txt")
	old := mustStat(t, a).ModTime()
	os.Chtimes(b, old.Add(10e9), old.Add(10e9))
	ws := workspace.New(dir)
	tests := []struct {
		name  string
		input map[string]any
		want  string
	}{
		{"files newest first", map[string]any{"pattern": "TODO"},
			"Found 2 files\n" + b + "\n" + a},
		{"count", map[string]any{"pattern": "TODO", "output_mode": "count"},
			a + ":2\n" + b + ":1\n\nFound 3 matches in 2 files."},
		{"content with line numbers", map[string]any{"pattern": "TODO", "output_mode": "content"},
			a + ":2:// TODO one\n" + a + ":4:// TODO two\n" + b + ":3:TODO three"},
		{"content with context", map[string]any{"pattern": "three", "output_mode": "content", "-C": 1},
			b + "-2-y\n" + b + ":3:TODO three\n" + b + "-4-z"},
		{"context groups separated", map[string]any{"pattern": "TODO", "output_mode": "content", "-A": 1, "glob": "*.go"},
			a + ":2:// TODO one\n" + a + "-3-func A() {}\n" + a + ":4:// TODO two"},
		{"only matching without numbers", map[string]any{"pattern": `TODO \w+`, "output_mode": "content", "-o": true, "-n": false, "path": "a.go"},
			a + ":TODO one\n" + a + ":TODO two"},
		{"head limit note", map[string]any{"pattern": "TODO", "output_mode": "content", "head_limit": 1},
			a + ":2:// TODO one\n\n[2 more entries not shown. Pass offset: 1 to see the next ones, or narrow the search.]"},
		{"offset", map[string]any{"pattern": "TODO", "output_mode": "content", "offset": 2},
			b + ":3:TODO three"},
		{"nothing", map[string]any{"pattern": "absent"}, "No files found."},
		{"type filter", map[string]any{"pattern": "TODO", "type": "go"}, "Found 1 file\n" + a},
	}
	rgPath := FindRipgrep()
	for _, backend := range []string{"ripgrep", "go"} {
		if backend == "ripgrep" && rgPath == "" {
			continue
		}
		g := NewGrep(ws, map[string]string{"ripgrep": rgPath, "go": ""}[backend])
		for _, tc := range tests {
			t.Run(backend+"/"+tc.name, func(t *testing.T) {
				res := run(t, g, tc.input)
				if res.IsError || res.Text() != tc.want {
					t.Errorf("got (error %v)\n%s\nwant\n%s", res.IsError, res.Text(), tc.want)
				}
			})
		}
	}
}

func TestGrepErrors(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	testfifo.Make(t, filepath.Join(dir, "pipe"))
	ws := workspace.New(dir)
	tests := []struct {
		name  string
		input map[string]any
		want  string
	}{
		{"bad regexp", map[string]any{"pattern": "a("}, "not a valid regular expression"},
		{"unknown type", map[string]any{"pattern": "a", "type": "nosuchtype"}, "unknown file type"},
		{"missing path", map[string]any{"pattern": "a", "path": "nope"}, "does not exist"},
		{"bad mode", map[string]any{"pattern": "a", "output_mode": "lines"}, "output_mode"},
		{"empty pattern", map[string]any{"pattern": ""}, "pattern is empty"},
		{"bad glob", map[string]any{"pattern": "a", "glob": "*.{go"}, "not a valid glob"},
		{"a FIFO", map[string]any{"pattern": "a", "path": "pipe"}, "named pipe (FIFO), not a regular file"},
		{"a device", map[string]any{"pattern": "a", "path": "/dev/zero"}, "character device"},
	}
	backends := map[string]*Grep{"go": NewGrep(ws, "")}
	if rg := FindRipgrep(); rg != "" {
		backends["ripgrep"] = NewGrep(ws, rg)
	}
	for name, g := range backends {
		for _, tc := range tests {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				res := run(t, g, tc.input)
				if !res.IsError || !strings.HasPrefix(res.Text(), "Error: ") || !strings.Contains(res.Text(), tc.want) {
					t.Errorf("got %q, want an error mentioning %q", res.Text(), tc.want)
				}
			})
		}
	}
}

func TestGrepNewlineNeedsMultiline(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\nb\n"), 0o644)
	g := NewGrep(workspace.New(dir), "")
	if res := run(t, g, map[string]any{"pattern": `a\nb`}); !res.IsError || !strings.Contains(res.Text(), "multiline") {
		t.Errorf("got %q", res.Text())
	}
	if res := run(t, g, map[string]any{"pattern": `a\nb`, "multiline": true}); res.IsError || !strings.Contains(res.Text(), "a.txt") {
		t.Errorf("multiline: got %q", res.Text())
	}
}

func TestGrepCancelled(t *testing.T) {
	ws, _ := generatedWorkspace(t, 200)
	backends := []*Grep{NewGrep(ws, "")}
	if rg := FindRipgrep(); rg != "" {
		backends = append(backends, NewGrep(ws, rg))
	}
	for _, g := range backends {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := g.Execute(ctx, &tools.Call{Input: json.RawMessage(`{"pattern":"server"}`), Host: tools.NoHost{}, Progress: tools.NoProgress{}})
		if err == nil {
			t.Errorf("%s: a cancelled search returned no error", g.Backend())
		}
	}
}

func mustStat(t *testing.T, p string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

// TestGrepMappedFilesAgree searches with every file mapped into memory.
func TestGrepMappedFilesAgree(t *testing.T) {
	rgPath := requireRipgrep(t)
	old := mmapThreshold
	mmapThreshold = 1
	defer func() { mmapThreshold = old }()
	ws, _ := generatedWorkspace(t, 200)
	for _, in := range []map[string]any{
		{"pattern": "TODO", "output_mode": "content"},
		{"pattern": "server", "output_mode": "count", "-i": true},
		{"pattern": `struct \{\n\s+Name`, "multiline": true, "output_mode": "content"},
	} {
		want, got := run(t, NewGrep(ws, rgPath), in), run(t, NewGrep(ws, ""), in)
		if got.Text() != want.Text() || strings.HasPrefix(got.Text(), "No ") {
			t.Errorf("%v: go\n%s\nrg\n%s", in, got.Text(), want.Text())
		}
	}
}

// TestGrepStopsCollectingAtTheCap checks that a content search matching
// everything stops at the memory cap and says so.
func TestGrepStopsCollectingAtTheCap(t *testing.T) {
	old := maxCollectedBytes
	maxCollectedBytes = 4 << 10
	defer func() { maxCollectedBytes = old }()
	ws, _ := generatedWorkspace(t, 300)
	backends := []*Grep{NewGrep(ws, "")}
	if rg := FindRipgrep(); rg != "" {
		backends = append(backends, NewGrep(ws, rg))
	}
	for _, g := range backends {
		res := run(t, g, map[string]any{"pattern": ".", "output_mode": "content", "head_limit": 0})
		if res.IsError || !strings.Contains(res.Text(), "The search stopped early") {
			t.Errorf("%s: no note in %d bytes of output", g.Backend(), len(res.Text()))
		}
		if n := strings.Count(res.Text(), "\n"); n > 2000 {
			t.Errorf("%s: %d lines despite a 4 KiB cap", g.Backend(), n)
		}
		// A narrow search is unaffected.
		if res := run(t, g, map[string]any{"pattern": "Retry int", "output_mode": "content"}); strings.Contains(res.Text(), "stopped early") {
			t.Errorf("%s: a small search was cut", g.Backend())
		}
	}
}

func TestUnicodeClasses(t *testing.T) {
	tests := []struct {
		pattern string
		matches []string
		rejects []string
	}{
		{`^\w+$`, []string{"Grüße", "naïve_1", "١٢٣"}, []string{"a b", "a-b"}},
		{`^\\w$`, []string{`\w`}, []string{"w", "é"}},
		{`^[\w-]+$`, []string{"ü-ß"}, []string{"a b"}},
		{`^[]\d]+$`, []string{"]١2"}, []string{"a"}},
		{`^[^]\d]$`, []string{"a"}, []string{"]", "٣"}},
		{`^[[:alpha:]\s]+$`, []string{"ab\u00a0cd"}, []string{"ab1"}},
		{`^\S+\s\D$`, []string{"x\u2003y"}, []string{"x y1", "x\u20037"}},
	}
	for _, tc := range tests {
		re, err := regexp.Compile(unicodeClasses(tc.pattern))
		if err != nil {
			t.Errorf("%s: %v", tc.pattern, err)
			continue
		}
		for _, m := range tc.matches {
			if !re.MatchString(m) {
				t.Errorf("%s (as %s) does not match %q", tc.pattern, re, m)
			}
		}
		for _, r := range tc.rejects {
			if re.MatchString(r) {
				t.Errorf("%s (as %s) matches %q", tc.pattern, re, r)
			}
		}
	}
}

// TestGrepAppliedLimit states Claude Code's GrepOutput: appliedLimit is
// set only when the limit cut the results, and totalFiles says how many
// there are.
func TestGrepAppliedLimit(t *testing.T) {
	dir := t.TempDir()
	for i := range 3 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), []byte("match\n"), 0o644)
	}
	g := NewGrep(workspace.New(dir), "") // the output is shared by both backends
	for _, tc := range []struct {
		limit int
		want  int
	}{{250, 0}, {3, 0}, {2, 2}} {
		res := run(t, g, map[string]any{"pattern": "match", "head_limit": tc.limit})
		out := res.Structured.(GrepOutput)
		if out.AppliedLimit != tc.want {
			t.Errorf("head_limit %d: appliedLimit %d, want %d", tc.limit, out.AppliedLimit, tc.want)
		}
		// totalFiles counts the files the limit left out too.
		if out.TotalFiles != 3 || out.NumFiles != min(tc.limit, 3) {
			t.Errorf("head_limit %d: numFiles %d, totalFiles %d; want %d and 3", tc.limit, out.NumFiles, out.TotalFiles, min(tc.limit, 3))
		}
	}
}

// TestGrepNamesFilesOnlyWhereClaudeCodeDoes: files_with_matches and count
// name the matching files; content mode, as Claude Code's, names none
// (numFiles 0, filenames empty) since its lines carry their paths.
func TestGrepNamesFilesOnlyWhereClaudeCodeDoes(t *testing.T) {
	dir := t.TempDir()
	for i := range 3 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), []byte("match\n"), 0o644)
	}
	g := NewGrep(workspace.New(dir), "")
	for _, tc := range []struct {
		mode      string
		wantNames int
	}{{ModeFilesWithMatches, 3}, {ModeCount, 3}, {ModeContent, 0}} {
		out := run(t, g, map[string]any{"pattern": "match", "output_mode": tc.mode}).Structured.(GrepOutput)
		if out.NumFiles != tc.wantNames {
			t.Errorf("%s: numFiles %d, want %d", tc.mode, out.NumFiles, tc.wantNames)
		}
		if out.Filenames == nil || (tc.mode == ModeContent && len(out.Filenames) != 0) {
			t.Errorf("%s: filenames %q, want a list (empty in content mode)", tc.mode, out.Filenames)
		}
		if tc.mode == ModeContent && out.TotalLines != 3 {
			t.Errorf("content: totalLines %d, want 3", out.TotalLines)
		}
	}
}
