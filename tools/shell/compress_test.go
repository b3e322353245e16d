package shell

import (
	"strings"
	"testing"
)

func TestCompressOutput(t *testing.T) {
	gitLog := `commit 0123456789abcdef0123456789abcdef01234567
Author: Ada Lovelace <ada@example.com>
Date:   Mon Jan 2 15:04:05 2023 -0700

    Add the engine

    Longer explanation that is dropped.

commit fedcba9876543210fedcba9876543210fedcba98
Author: Charles Babbage <cb@example.com>
Date:   Sun Jan 1 10:00:00 2023 +0000

    Initial commit
`
	gitDiff := "diff --git a/x.go b/x.go\nindex 111..222 100644\n--- a/x.go\n+++ b/x.go\n@@ -1,9 +1,9 @@\n a\n b\n c\n d\n e\n f\n-old\n+new\n g\n"
	lsLong := `total 16
drwxr-xr-x  3 ada staff  96 Jan  2 15:04 .
drwxr-xr-x 10 ada staff 320 Jan  2 15:04 ..
-rw-r--r--  1 ada staff 1234 Jan  2 15:04 main.go
drwxr-xr-x  2 ada staff   64 Jan  2 15:04 my dir
`
	goTest := `=== RUN   TestA
--- PASS: TestA (0.00s)
=== RUN   TestB
    b_test.go:9: want 2, got 3
--- FAIL: TestB (0.00s)
FAIL
FAIL	example.com/m	0.01s
ok  	example.com/other	0.02s
`
	tests := []struct {
		name       string
		command    string
		output     string
		compressed bool
		want       []string
		gone       []string
	}{
		{"git log", "git log -n 2", gitLog, true,
			[]string{"0123456789 Jan 2 2023 Ada Lovelace: Add the engine", "fedcba9876 Jan 1 2023 Charles Babbage: Initial commit"},
			[]string{"Longer explanation", "ada@example.com"}},
		{"git diff", "git diff", gitDiff, true,
			[]string{"-old", "+new", " a", " f", "… 4 unchanged lines …"}, []string{"index 111..222", " c\n"}},
		{"ls -la", "ls -la", lsLong, true,
			[]string{"-rw-r--r--     1234 main.go", "drwxr-xr-x       64 my dir"}, []string{"total 16", "staff", " ..\n"}},
		{"go test", "go test ./...", goTest, true,
			[]string{"b_test.go:9: want 2, got 3", "--- FAIL: TestB", "FAIL\texample.com/m", "ok  \texample.com/other", "go test: 1 packages ok, 1 failed, 0 without tests"},
			[]string{"=== RUN", "--- PASS"}},
		{"piped command untouched", "git log | head", gitLog, false, nil, nil},
		{"other command untouched", "python3 notes.py", gitLog, false, nil, nil},
		{"grep grouped by file", "grep -rn TODO src", "src/a.go:3:// TODO one\nsrc/a.go:9:\t// TODO two\nsrc/b.go:1:x := 1 // TODO " + strings.Repeat("y", 300) + "\n", true,
			[]string{"src/a.go\n  3: // TODO one\n  9: // TODO two\n\nsrc/b.go\n  1: x := 1 // TODO yyy", "y…"}, []string{"src/a.go:9", strings.Repeat("y", 250)}},
		{"rg without line numbers", "rg TODO", "internal/pkg/a.go:// TODO one\ninternal/pkg/a.go:// TODO two\ninternal/pkg/a.go:// TODO three\n", true,
			[]string{"internal/pkg/a.go\n  // TODO one\n  // TODO two\n  // TODO three"}, nil},
		{"grep of one file untouched", "grep TODO a.go", "// TODO one\n// TODO two\n", false, nil, nil},
		{"one match per file untouched", "grep -rl TODO", "a.go:1:x\nb.go:2:y\n", false, nil, nil},
		{"cat numbered", "cat notes.txt", "first\n\nthird\n", true, []string{"     1\tfirst\n     2\t\n     3\tthird"}, nil},
		{"head numbered", "head -n 2 notes.txt", "first\nsecond\n", true, []string{"     1\tfirst\n     2\tsecond"}, nil},
		{"cat of two files untouched", "cat a b", "x\n", false, nil, nil},
		{"tail untouched (its first line is not line 1)", "tail notes.txt", "x\ny\n", false, nil, nil},
		{"unexpected shape untouched", "git log", "fatal: not a git repository\n", false, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := compressOutput(tc.command, tc.output)
			if ok != tc.compressed {
				t.Fatalf("compressed %v, want %v:\n%s", ok, tc.compressed, got)
			}
			if !ok {
				if got != tc.output {
					t.Errorf("output changed")
				}
				return
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("lacks %q:\n%s", w, got)
				}
			}
			for _, g := range tc.gone {
				if strings.Contains(got, g) {
					t.Errorf("still has %q:\n%s", g, got)
				}
			}
			if !strings.HasSuffix(got, "compressed by the bash.compressOutput setting]") {
				t.Errorf("no note: %q", got)
			}
		})
	}
}
