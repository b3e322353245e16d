package pathutil

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolhost/toolhost/internal/testfifo"
)

// A hostile workspace can hold a FIFO or a device under the name of a file
// toolhost reads (.gitignore, settings, .mcp.json): ReadFile refuses them
// at once instead of waiting or reading forever.
func TestReadFileRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, ".gitignore")
	testfifo.Make(t, fifo)
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, 100), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{fifo, "/dev/zero", dir} {
		var nr *NotRegularError
		if _, err := ReadFile(name, 1<<20); !errors.As(err, &nr) {
			t.Errorf("ReadFile(%s) = %v, want a NotRegularError", name, err)
		}
	}
	if _, err := ReadFile(big, 99); err == nil {
		t.Errorf("ReadFile of 100 bytes with a limit of 99 succeeded")
	}
	if data, err := ReadFile(big, 100); err != nil || len(data) != 100 {
		t.Errorf("ReadFile at the limit = %d bytes, %v", len(data), err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), 10); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v, want ErrNotExist", err)
	}
}
