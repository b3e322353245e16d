//go:build unix

package discovery

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteIsPrivate(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	path, err := Write(Info{PID: os.Getpid(), Roots: []string{"/x"}, URL: "http://127.0.0.1:1/mcp", Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, want 0600", st.Mode().Perm())
	}
	dst, _ := os.Stat(filepath.Dir(path))
	if dst.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v, want 0700", dst.Mode().Perm())
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path); err == nil {
		t.Error("a file others can read was accepted")
	}
}
