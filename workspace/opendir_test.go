package workspace_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolhost/toolhost/workspace"
)

// OpenDir opens a folder inside the workspace through the jail: links that
// stay inside are followed, links that leave are refused; a folder outside
// every workspace folder (approved by the user) opens as given.
func TestOpenDir(t *testing.T) {
	ws, root, outside := jailed(t)
	for _, d := range []string{filepath.Join(root, "real", "sub"), filepath.Join(outside, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "marker"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"rel": "real", "abs": filepath.Join(root, "real"), "out": outside} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		path   string
		escape bool
	}{
		{path: root},
		{path: filepath.Join(root, "real", "sub")},
		{path: filepath.Join(root, "rel", "sub")},
		{path: filepath.Join(root, "abs", "sub")},
		{path: filepath.Join(root, "out"), escape: true},
		{path: filepath.Join(root, "out", "sub"), escape: true},
		{path: filepath.Join(outside, "sub")},
	} {
		dir, err := ws.OpenDir(context.Background(), c.path)
		var esc *workspace.EscapeError
		switch {
		case c.escape && !errors.As(err, &esc):
			t.Errorf("%s: %v; want an EscapeError", c.path, err)
		case !c.escape && err != nil:
			t.Errorf("%s: %v", c.path, err)
		}
		if dir != nil {
			dir.Close()
		}
	}
}
