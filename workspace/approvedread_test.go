package workspace_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolhost/toolhost/workspace"
)

// A read under an approval opens the approved file and nothing else: the
// link must still lead there and the file there be the one approved. A
// path outside the workspace given as such is held to its approval too.
func TestApprovedReads(t *testing.T) {
	type setup struct{ root, outside, link, secret, other string }
	tests := []struct {
		name string
		// path is read (default: the link inside the workspace).
		path func(s setup) string
		// approve approves the read; change runs between the approval and
		// the read.
		approve bool
		change  func(t *testing.T, s setup)
		want    string
		escape  bool
		changed bool
	}{
		{name: "no approval", escape: true},
		{name: "approved", approve: true, want: "secret"},
		{name: "link pointed elsewhere", approve: true, changed: true,
			change: func(t *testing.T, s setup) { relink(t, s.link, s.other) }},
		{name: "file replaced", approve: true, changed: true,
			change: func(t *testing.T, s setup) { must(t, os.Rename(s.other, s.secret)) }},
		{name: "file written in place", approve: true, want: "changed",
			change: func(t *testing.T, s setup) { must(t, os.WriteFile(s.secret, []byte("changed"), 0o644)) }},
		{name: "outside path", path: func(s setup) string { return s.secret }, approve: true, want: "secret"},
		{name: "outside path swapped for a link", path: func(s setup) string { return s.secret }, approve: true, changed: true,
			change: func(t *testing.T, s setup) { relink(t, s.secret, s.other) }},
		{name: "outside path without approval", path: func(s setup) string { return s.secret }, want: "secret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, root, outside := jailed(t)
			s := setup{root: root, outside: outside, link: filepath.Join(root, "link.txt"),
				secret: filepath.Join(outside, "secret.txt"), other: filepath.Join(outside, "other.txt")}
			must(t, os.WriteFile(s.secret, []byte("secret"), 0o644))
			must(t, os.WriteFile(s.other, []byte("other"), 0o644))
			must(t, os.Symlink(s.secret, s.link))
			path := s.link
			if tt.path != nil {
				path = tt.path(s)
			}
			ctx := context.Background()
			if tt.approve {
				ctx = approved(t, path)
			}
			if tt.change != nil {
				tt.change(t, s)
			}
			got, err := ws.ReadRegular(ctx, path, nil, 1<<20)
			var esc *workspace.EscapeError
			var changed *workspace.ApprovalChangedError
			switch {
			case tt.escape:
				if !errors.As(err, &esc) {
					t.Errorf("got %q, %v; want an EscapeError", got, err)
				}
			case tt.changed:
				if !errors.As(err, &changed) {
					t.Errorf("got %q, %v; want an ApprovalChangedError", got, err)
				}
			case err != nil || string(got) != tt.want:
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// relink makes link a symbolic link to target, in one step.
func relink(t *testing.T, link, target string) {
	t.Helper()
	must(t, os.Symlink(target, link+".new"))
	must(t, os.Rename(link+".new", link))
}

// approved is a context carrying the approval of reading path, where it
// leads now.
func approved(t *testing.T, path string) context.Context {
	t.Helper()
	a, ok := workspace.ApproveRead(path, workspace.RealPath(path))
	if !ok {
		t.Fatalf("no approval of %s: nothing is there", path)
	}
	return workspace.WithApprovedReads(context.Background(), []workspace.ApprovedRead{a})
}
