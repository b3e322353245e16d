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

// A folder reached through a link leading outside opens only as approved:
// the approved folder, while the link still leads there and it is the
// same folder.
func TestOpenDirApproved(t *testing.T) {
	for _, c := range []struct {
		name    string
		approve bool
		change  func(t *testing.T, link, folder, other string)
		escape  bool
		changed bool
	}{
		{name: "no approval", escape: true},
		{name: "approved", approve: true},
		{name: "link pointed elsewhere", approve: true, changed: true,
			change: func(t *testing.T, link, _, other string) { relink(t, link, other) }},
		{name: "folder replaced", approve: true, changed: true,
			change: func(t *testing.T, _, folder, other string) {
				must(t, os.RemoveAll(folder))
				must(t, os.Rename(other, folder))
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws, root, outside := jailed(t)
			link, folder, other := filepath.Join(root, "docs"), filepath.Join(outside, "docs"), filepath.Join(outside, "other")
			for _, d := range []string{folder, other} {
				must(t, os.MkdirAll(d, 0o755))
			}
			must(t, os.WriteFile(filepath.Join(folder, "approved.txt"), nil, 0o644))
			must(t, os.Symlink(folder, link))
			ctx := context.Background()
			if c.approve {
				ctx = approved(t, link)
			}
			if c.change != nil {
				c.change(t, link, folder, other)
			}
			dir, err := ws.OpenDir(ctx, link)
			var esc *workspace.EscapeError
			var changed *workspace.ApprovalChangedError
			switch {
			case c.escape && !errors.As(err, &esc):
				t.Errorf("%v; want an EscapeError", err)
			case c.changed && !errors.As(err, &changed):
				t.Errorf("%v; want an ApprovalChangedError", err)
			case !c.escape && !c.changed:
				if err != nil {
					t.Fatal(err)
				}
				if _, err := dir.Stat("approved.txt"); err != nil {
					t.Errorf("the approved folder was not opened: %v", err)
				}
			}
			if dir != nil {
				dir.Close()
			}
		})
	}
}
