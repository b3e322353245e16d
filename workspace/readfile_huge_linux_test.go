package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/toolhost/toolhost/internal/hugemem"
)

// TestBigReadsLandInHugePages: a file of hugemem.Min bytes or more (the
// 45 MB file of an Edit) is read into a buffer hugemem made, aligned to a
// huge page, so that a fresh server does not fault in its 4 KB pages one
// by one.
func TestBigReadsLandInHugePages(t *testing.T) {
	if mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil || strings.Contains(string(mode), "[never]") {
		t.Skipf("transparent huge pages are off here (%q, %v)", mode, err)
	}
	dir := t.TempDir()
	ws := New(dir)
	for _, size := range []int{hugemem.Min + 100, 3 * hugemem.Min} {
		p := filepath.Join(dir, "f.txt")
		want := strings.Repeat("x", size)
		if err := os.WriteFile(p, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ws.ReadRegular(context.Background(), p, nil, int64(size)*2)
		if err != nil || string(got) != want {
			t.Fatalf("%d bytes: read %d bytes, %v", size, len(got), err)
		}
		if at := uintptr(unsafe.Pointer(unsafe.SliceData(got))); at%(2<<20) != 0 {
			t.Errorf("%d bytes: the buffer starts at %#x, not on a huge page", size, at)
		}
	}
}
