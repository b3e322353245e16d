package workspace_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolhost/toolhost/workspace"
)

// Reads of paths inside the workspace follow links that stay inside it
// (relative or absolute) and refuse links that leave it; a path outside
// every folder, which the permission checker asked about, opens as given.
func TestReadJail(t *testing.T) {
	ws, root, outside := jailed(t)
	for p, content := range map[string]string{
		filepath.Join(root, "real", "in.txt"): "inside",
		filepath.Join(outside, "secret.txt"):  "outside",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"rel.txt":  filepath.Join("real", "in.txt"),
		"abs.txt":  filepath.Join(root, "real", "in.txt"),
		"out.txt":  filepath.Join(outside, "secret.txt"),
		"outdir":   outside,
		"dangling": filepath.Join(outside, "missing.txt"),
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		path    string
		want    string
		escape  bool
		missing bool
	}{
		{path: filepath.Join(root, "real", "in.txt"), want: "inside"},
		{path: filepath.Join(root, "rel.txt"), want: "inside"},
		{path: filepath.Join(root, "abs.txt"), want: "inside"},
		{path: filepath.Join(root, "out.txt"), escape: true},
		{path: filepath.Join(root, "outdir", "secret.txt"), escape: true},
		{path: filepath.Join(root, "dangling"), missing: true},
		{path: filepath.Join(outside, "secret.txt"), want: "outside"},
	}
	for _, c := range cases {
		got, err := ws.ReadRegular(context.Background(), c.path, nil, 1<<20)
		var esc *workspace.EscapeError
		switch {
		case c.escape:
			if !errors.As(err, &esc) {
				t.Errorf("%s: got %q, %v; want an EscapeError", c.path, got, err)
			}
		case c.missing:
			if !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s: got %q, %v; want not found", c.path, got, err)
			}
		case err != nil || string(got) != c.want:
			t.Errorf("%s: got %q, %v; want %q", c.path, got, err, c.want)
		}
	}
}
