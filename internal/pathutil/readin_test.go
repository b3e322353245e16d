package pathutil

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolhost/toolhost/internal/testfifo"
)

// ReadFileIn reads a file inside its folder, links inside included, and
// refuses one that leads outside or is not a regular file.
func TestReadFileIn(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "dir")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{filepath.Join(dir, "sub", "a.txt"): "inside", filepath.Join(base, "out.txt"): "outside"} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"in": "sub/a.txt", "out": "../out.txt", "abs": filepath.Join(base, "out.txt"), "dirout": base} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	testfifo.Make(t, filepath.Join(dir, "fifo"))
	for _, c := range []struct {
		rel, want string
		err       error
	}{
		{rel: "sub/a.txt", want: "inside"},
		{rel: "in", want: "inside"},
		{rel: "out", err: ErrLeadsOutside},
		{rel: "abs", err: ErrLeadsOutside},
		{rel: "dirout/out.txt", err: ErrLeadsOutside},
		{rel: "fifo", err: &NotRegularError{}},
		{rel: "missing", err: os.ErrNotExist},
	} {
		data, err := ReadFileIn(dir, c.rel, 1<<20)
		var nr *NotRegularError
		switch {
		case c.err == nil && (err != nil || string(data) != c.want):
			t.Errorf("%s: %q, %v", c.rel, data, err)
		case c.err != nil && errors.As(c.err, &nr) && !errors.As(err, &nr):
			t.Errorf("%s: %v, want a NotRegularError", c.rel, err)
		case c.err != nil && !errors.As(c.err, &nr) && !errors.Is(err, c.err):
			t.Errorf("%s: %q, %v, want %v", c.rel, data, err, c.err)
		}
	}
}
