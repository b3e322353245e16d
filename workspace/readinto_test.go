package workspace

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFileIntoReusesAndGrowsTheBuffer(t *testing.T) {
	dir := t.TempDir()
	big := bytes.Repeat([]byte("0123456789abcdef"), 10000)
	files := map[string][]byte{"empty.txt": nil, "small.txt": []byte("hi\n"), "big.txt": big}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w := New(dir)
	buf := make([]byte, 0, 8)
	for _, name := range []string{"small.txt", "big.txt", "empty.txt", "small.txt"} {
		got, version, err := w.ReadFileInto(filepath.Join(dir, name), buf)
		if err != nil || version != nil {
			t.Fatalf("%s: %v, version %v", name, err, version)
		}
		if !bytes.Equal(got, files[name]) {
			t.Fatalf("%s: read %d bytes, want %d", name, len(got), len(files[name]))
		}
		buf = got[:0]
	}
	if cap(buf) < len(big) {
		t.Errorf("the grown buffer was not handed back (cap %d)", cap(buf))
	}
	// An open document is read from its buffer, with its version.
	path := filepath.Join(dir, "small.txt")
	if err := w.Open(PathToURI(path), "text", 7, "unsaved text"); err != nil {
		t.Fatal(err)
	}
	got, version, err := w.ReadFileInto(path, buf)
	if err != nil || string(got) != "unsaved text" || version == nil || *version != 7 {
		t.Fatalf("open document: %q, %v, %v", got, version, err)
	}
	if _, _, err := w.ReadFileInto(filepath.Join(dir, "missing"), buf); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
}
