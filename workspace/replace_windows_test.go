package workspace

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// holdOpen opens path as an editor may: without FILE_SHARE_DELETE, so
// that it cannot be replaced while held.
func holdOpen(t *testing.T, path string) windows.Handle {
	t.Helper()
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		t.Fatal(err)
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ, windows.FILE_SHARE_READ, nil, windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestWriteReplacesAFileHeldOpenBriefly(t *testing.T) {
	tests := []struct {
		name string
		// releaseAt is the wait at which the holder closes its handle;
		// 0 never.
		releaseAt int
		wantErr   bool
	}{
		{name: "released after the first try", releaseAt: 1},
		{name: "released after a few tries", releaseAt: 4},
		{name: "held throughout", releaseAt: 0, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "held.txt")
			if err := os.WriteFile(path, []byte("old\r\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			h := holdOpen(t, path)
			released := false
			release := func() {
				if !released {
					windows.CloseHandle(h)
					released = true
				}
			}
			defer release()
			waits := 0
			replaceWait = func(time.Duration) {
				waits++
				if waits == tt.releaseAt {
					release()
				}
			}
			defer func() { replaceWait = time.Sleep }()
			err := WriteFileAtomic(path, []byte("new\r\n"))
			if tt.wantErr {
				if err == nil {
					t.Fatal("the write replaced a file held open throughout")
				}
				if waits != replaceAttempts-1 {
					t.Errorf("waited %d times, want %d", waits, replaceAttempts-1)
				}
				return
			}
			if err != nil {
				t.Fatalf("write: %v (after %d waits)", err, waits)
			}
			if waits != tt.releaseAt {
				t.Errorf("waited %d times, want %d", waits, tt.releaseAt)
			}
			release()
			if got, _ := os.ReadFile(path); string(got) != "new\r\n" {
				t.Errorf("content %q, want %q", got, "new\r\n")
			}
		})
	}
}
