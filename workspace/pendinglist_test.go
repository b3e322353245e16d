package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toolhost/toolhost/internal/wine"
)

// The pending list stays open while the process runs; its folder can
// still be removed (a user clearing the cache folder), on Windows too,
// where a file opened without sharing deletion cannot be deleted.
func TestPendingListDoesNotHoldItsFolder(t *testing.T) {
	wine.Skip(t, wine.DeleteOnClose)
	dir := filepath.Join(t.TempDir(), "pending-writes")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := openPendingList(filepath.Join(dir, "1.list"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("one\n"); err != nil {
		t.Fatalf("appending to the list: %v", err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatalf("removing the folder of an open list: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the folder is still there: %v", err)
	}
}
