package workspace

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// A write replaces the file by rename, yet the file keeps its owner (where
// this process may give it: root in a container editing the user's file),
// its mode and its extended attributes (ACLs and SELinux labels are some),
// through the jail and for toolhost's own files alike.
func TestWriteKeepsOwnerModeAndAttributes(t *testing.T) {
	const uid, gid = 4321, 4322
	writes := []struct {
		name  string
		write func(dir, p string, data []byte) error
	}{
		{"in the workspace", func(dir, p string, data []byte) error { return New(dir).WriteFile(p, data) }},
		{"a file of toolhost's own", func(_, p string, data []byte) error { return WriteFileAtomic(p, data) }},
	}
	for _, tt := range writes {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "notes.txt")
			if err := os.WriteFile(p, []byte("old\n"), 0o640); err != nil {
				t.Fatal(err)
			}
			if err := unix.Setxattr(p, "user.origin", []byte("kept"), 0); err != nil {
				t.Fatalf("this file system keeps no user attributes (%v); the test needs one that does", err)
			}
			asRoot := os.Geteuid() == 0
			if asRoot {
				if err := os.Chown(p, uid, gid); err != nil {
					t.Fatal(err)
				}
			}
			if err := tt.write(dir, p, []byte("new\n")); err != nil {
				t.Fatal(err)
			}
			st, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode().Perm() != 0o640 {
				t.Errorf("mode %v, want 0640", st.Mode().Perm())
			}
			if sys := st.Sys().(*syscall.Stat_t); asRoot && (sys.Uid != uid || sys.Gid != gid) {
				t.Errorf("owner %d:%d, want %d:%d", sys.Uid, sys.Gid, uid, gid)
			}
			value := make([]byte, 16)
			n, err := unix.Getxattr(p, "user.origin", value)
			if err != nil || string(value[:n]) != "kept" {
				t.Errorf("user.origin = %q (%v), want kept", value[:max(n, 0)], err)
			}
			if got, _ := os.ReadFile(p); string(got) != "new\n" {
				t.Errorf("content %q", got)
			}
		})
	}
}
