package discovery

import (
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
)

// The session file and its folder carry a protected access list with one
// entry, the current user's, and a file of the user's own is read back.
func TestWriteIsPrivate(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	path, err := Write(Info{PID: os.Getpid(), Roots: []string{`C:\x`}, URL: "http://127.0.0.1:1/mcp", Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	me, err := currentUser()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, filepath.Dir(path)} {
		sd, err := windows.GetNamedSecurityInfo(p, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
		if err != nil {
			t.Fatal(err)
		}
		control, _, err := sd.Control()
		if err != nil {
			t.Fatal(err)
		}
		if control&windows.SE_DACL_PROTECTED == 0 {
			t.Errorf("%s: the access list inherits from its parent; want it protected", p)
		}
		dacl, _, err := sd.DACL()
		if err != nil {
			t.Fatal(err)
		}
		if dacl.AceCount != 1 {
			t.Fatalf("%s: %d access entries, want 1 (the user's)", p, dacl.AceCount)
		}
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, 0, &ace); err != nil {
			t.Fatal(err)
		}
		if sid := (*windows.SID)(unsafePointer(&ace.SidStart)); !sid.Equals(me) {
			t.Errorf("%s: the entry is for %s, want the user %s", p, sid, me)
		}
	}
	if _, err := Read(path); err != nil {
		t.Errorf("the user's own session file was refused: %v", err)
	}
}

func unsafePointer(p *uint32) unsafe.Pointer { return unsafe.Pointer(p) }
