package workspace_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/workspace"
)

// A root is pinned to the folder it led to when it was opened: after its
// link is re-pointed, or its folder removed, CheckRoots says what happened,
// and the jail reads, lists and writes nothing through it even without an
// earlier check. A folder replaced by another at the same place is refused
// within the call that saw the replacement; CheckRoots, before the next
// call, takes the new folder, which the editor sees there too.
func TestARootIsTheFolderThatWasOpened(t *testing.T) {
	tests := []struct {
		name string
		// change alters the root after it was opened (link leads to opened).
		change func(t *testing.T, link, opened, other string)
		// want is what CheckRoots says; "" when it takes the change.
		want string
	}{
		{name: "link re-pointed", want: "now leads to", change: func(t *testing.T, link, opened, other string) {
			relink(t, link, other)
		}},
		{name: "folder removed", want: "no longer exists", change: func(t *testing.T, link, opened, other string) {
			must(t, os.RemoveAll(opened))
		}},
		{name: "folder replaced", change: func(t *testing.T, link, opened, other string) {
			must(t, os.Rename(opened, opened+".old"))
			must(t, os.Rename(other, opened))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, base, _ := jailed(t)
			opened, other, link := filepath.Join(base, "opened"), filepath.Join(base, "other"), filepath.Join(base, "proj")
			for _, d := range []string{opened, other} {
				must(t, os.Mkdir(d, 0o755))
				must(t, os.WriteFile(filepath.Join(d, "a.txt"), []byte(d), 0o644))
			}
			must(t, os.Symlink(opened, link))
			ws := workspace.New(link)
			if got := ws.RealRoots(); len(got) != 1 || got[0] != opened {
				t.Fatalf("RealRoots %q, want %q", got, opened)
			}
			tt.change(t, link, opened, other)

			// Within the call: nothing through the changed root.
			ctx := context.Background()
			if data, err := ws.ReadRegular(ctx, filepath.Join(link, "a.txt"), nil, 1<<20); err == nil {
				t.Errorf("read %q through the changed root", data)
			}
			if root, err := ws.OpenDir(ctx, link); err == nil {
				root.Close()
				t.Error("the changed root opened for a search")
			}
			// Through the root's name; and by the folder's own path, which
			// is another folder when the opened one was replaced (when
			// only the link moved, it is still the folder that was opened).
			names := []string{filepath.Join(link, "new.txt")}
			if tt.name != "link re-pointed" {
				names = append(names, filepath.Join(opened, "new.txt"))
			}
			for _, name := range names {
				if err := ws.WriteFile(name, []byte("x")); err == nil {
					t.Errorf("wrote %s through the changed root", name)
				}
			}
			for _, d := range []string{other, opened} {
				if _, err := os.Lstat(filepath.Join(d, "new.txt")); err == nil {
					t.Errorf("a write landed in %s", d)
				}
			}
			if tt.name == "link re-pointed" && ws.Inside(filepath.Join(other, "a.txt")) {
				t.Error("the link's new target counts as inside the workspace")
			}

			// Before the next call.
			err := ws.CheckRoots()
			var moved *workspace.MovedError
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("CheckRoots: %v, want the folder at the same place taken", err)
			case tt.want != "" && (!errors.As(err, &moved) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "reopen the folder")):
				t.Errorf("CheckRoots: %v, want a *MovedError saying %q", err, tt.want)
			case tt.want == "":
				if data, err := ws.ReadRegular(ctx, filepath.Join(link, "a.txt"), nil, 1<<20); err != nil || string(data) != other {
					t.Errorf("after CheckRoots the root reads %q, %v; want the folder now there", data, err)
				}
			}
		})
	}
}

// A root reopened (set again after it was removed) is pinned anew; one
// kept across a change of the other roots keeps its pin.
func TestSetRootsKeepsThePinOfAKeptRoot(t *testing.T) {
	_, base, _ := jailed(t)
	opened, other, link := filepath.Join(base, "opened"), filepath.Join(base, "other"), filepath.Join(base, "proj")
	must(t, os.Mkdir(opened, 0o755))
	must(t, os.Mkdir(other, 0o755))
	must(t, os.Symlink(opened, link))
	ws := workspace.New(link)
	relink(t, link, other)
	ws.SetRoots([]string{link, base})
	if err := ws.CheckRoots(); err == nil {
		t.Error("adding a folder re-pinned the moved root")
	}
	ws.SetRoots([]string{base})
	ws.SetRoots([]string{link})
	if err := ws.CheckRoots(); err != nil {
		t.Errorf("the reopened root: %v", err)
	}
	if got := ws.RealRoots(); got[0] != other {
		t.Errorf("the reopened root leads to %q, want %q", got[0], other)
	}
}

// A root that does not exist when opened is pinned once it does.
func TestARootIsPinnedWhenItFirstExists(t *testing.T) {
	_, base, _ := jailed(t)
	root := filepath.Join(base, "later")
	ws := workspace.New(root)
	if err := ws.CheckRoots(); err != nil {
		t.Fatalf("a root not made yet: %v", err)
	}
	must(t, os.Mkdir(root, 0o755))
	if err := ws.CheckRoots(); err != nil {
		t.Fatalf("the root once made: %v", err)
	}
	// Pinned then: a link put in its place leads elsewhere.
	must(t, os.Rename(root, root+".old"))
	must(t, os.Symlink(root+".old", root))
	if err := ws.CheckRoots(); err == nil || !strings.Contains(err.Error(), "now leads to") {
		t.Errorf("the root, pinned when made, was replaced by a link: %v", err)
	}
}
