package udiff

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestUnifiedFormat(t *testing.T) {
	tests := []struct {
		name, old, new, want string
	}{
		{name: "equal", old: "a\n", new: "a\n", want: ""},
		{
			name: "one line changed in the middle",
			old:  "1\n2\n3\n4\n5\n6\n7\n8\n9\n",
			new:  "1\n2\n3\n4\nfive\n6\n7\n8\n9\n",
			want: "--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n",
		},
		{
			name: "new file",
			old:  "",
			new:  "x\ny\n",
			want: "--- a\n+++ b\n@@ -0,0 +1,2 @@\n+x\n+y\n",
		},
		{
			name: "missing final newline",
			old:  "a\nb",
			new:  "a\nb\n",
			want: "--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
		},
		{
			name: "far apart changes make two hunks",
			old:  "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n",
			new:  "one\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\ntwelve\n",
			want: "--- a\n+++ b\n@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n@@ -9,4 +9,4 @@\n 9\n 10\n 11\n-12\n+twelve\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Unified("a", "b", tt.old, tt.new); got != tt.want {
				t.Errorf("Unified =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestUnifiedAppliesWithPatch checks the output against GNU patch: applying
// the diff to the old text must give the new text exactly.
func TestUnifiedAppliesWithPatch(t *testing.T) {
	if _, err := exec.LookPath("patch"); err != nil {
		t.Skip("GNU patch is not installed")
	}
	var long strings.Builder
	for i := 0; i < 60; i++ {
		long.WriteString(strings.Repeat("x", i%7) + " line\n")
	}
	tests := []struct{ name, old, new string }{
		{"scattered edits", long.String(), strings.Replace(strings.Replace(long.String(), "xx line", "yy line", 3), "xxxxxx line", "z\nz\n", 1)},
		{"unicode and CRLF", "héllo\r\nwörld\r\n日本\r\n", "héllo\r\nworld\r\n日本\r\n😀\r\n"},
		{"drop final newline", "a\nb\nc\n", "a\nB\nc"},
		{"to empty", "a\nb\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "f.txt")
			if err := os.WriteFile(file, []byte(tt.old), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("patch", "--quiet", "--force", file)
			cmd.Stdin = strings.NewReader(Unified("a/f.txt", "b/f.txt", tt.old, tt.new))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("patch: %v\n%s", err, out)
			}
			got, _ := os.ReadFile(file)
			if string(got) != tt.new {
				t.Errorf("patched file = %q, want %q", got, tt.new)
			}
		})
	}
}

func TestHunksCounts(t *testing.T) {
	hunks := Hunks("a\nb\nc\n", "a\nB\nc\nd\n")
	if len(hunks) != 1 {
		t.Fatalf("got %d hunks", len(hunks))
	}
	h := hunks[0]
	if h.OldStart != 1 || h.OldLines != 3 || h.NewStart != 1 || h.NewLines != 4 {
		t.Errorf("hunk header %+v", h)
	}
	want := []string{" a", "-b", "+B", " c", "+d"}
	if strings.Join(h.Lines, "|") != strings.Join(want, "|") {
		t.Errorf("lines %q, want %q", h.Lines, want)
	}
}
