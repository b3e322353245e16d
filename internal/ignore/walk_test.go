package ignore

import (
	"path/filepath"
	"testing"
)

// TestChildPathIsJoin: the walk's paths are filepath.Join's for every clean
// folder path and entry name.
func TestChildPathIsJoin(t *testing.T) {
	for _, dir := range []string{".", "/", "a", "/a", "/a/b", "../a", "..", "a/b", `C:`, `C:\`, `\\host\share`} {
		dir = filepath.Clean(filepath.FromSlash(dir))
		for _, name := range []string{"f", "f.go", ".hidden", "a b"} {
			if got, want := childPath(dir, name), filepath.Join(dir, name); got != want {
				t.Errorf("childPath(%q, %q) = %q, filepath.Join gives %q", dir, name, got, want)
			}
		}
	}
}
