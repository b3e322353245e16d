package pathutil

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWithin(t *testing.T) {
	tests := []struct {
		dir, p string
		want   bool
	}{
		{"/a/b", "/a/b", true},
		{"/a/b", "/a/b/c", true},
		{"/a/b", "/a/b/c/d.go", true},
		{"/a/b", "/a/bc", false},
		{"/a/b", "/a", false},
		{"/a/b", "/a/c", false},
		{"/a/b", "/a/b/../c", false},
		{"/", "/anything", true},
		{"/a/b", "/a/b/..x", true},
	}
	for _, tt := range tests {
		if got := Within(tt.dir, filepath.Clean(tt.p)); got != tt.want {
			t.Errorf("Within(%q, %q) = %v, want %v", tt.dir, tt.p, got, tt.want)
		}
	}
}

func TestRealPath(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "target")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ in, want string }{
		{link, target},
		{filepath.Join(link, "new", "file.txt"), filepath.Join(target, "new", "file.txt")},
		{filepath.Join(dir, "missing", "x"), filepath.Join(dir, "missing", "x")},
		{target, target},
	}
	for _, tt := range tests {
		if got := RealPath(tt.in); got != tt.want {
			t.Errorf("RealPath(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFoldCase(t *testing.T) {
	tests := []struct{ name, folded string }{
		{".git/config", ".git/config"},
		{".GIT/CONFIG", ".git/config"},
		{`C:\Users\Me\.MCP.JSON`, `c:\users\me\.mcp.json`},
	}
	for _, tt := range tests {
		want := tt.name
		if CaseInsensitive {
			want = tt.folded
		}
		if got := FoldCase(tt.name); got != want {
			t.Errorf("FoldCase(%q) = %q, want %q (case-insensitive names: %v)", tt.name, got, want, CaseInsensitive)
		}
	}
}
