package worktree

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCreateStaysInsideTheRepository: links a repository ships under
// .toolhost/worktrees never make a worktree, a folder or a file outside
// it — neither a linked worktrees folder or name folder (git would check
// out there, and a later remove would delete there) nor a dangling
// .gitignore link (it would be created at its target).
func TestCreateStaysInsideTheRepository(t *testing.T) {
	tests := []struct {
		name string
		// setup plants links in the repository, pointing into outside.
		setup func(t *testing.T, repo, outside string)
		// wantErr: Create refuses; otherwise it succeeds and stays inside.
		wantErr bool
	}{
		{"worktrees folder is a link", func(t *testing.T, repo, outside string) {
			mkdir(t, filepath.Join(repo, ".toolhost"))
			symlink(t, outside, filepath.Join(repo, ".toolhost", "worktrees"))
		}, true},
		{"a folder of the name is a link", func(t *testing.T, repo, outside string) {
			mkdir(t, filepath.Join(repo, ".toolhost", "worktrees"))
			symlink(t, outside, filepath.Join(repo, ".toolhost", "worktrees", "team"))
		}, true},
		{"dangling .gitignore link", func(t *testing.T, repo, outside string) {
			mkdir(t, filepath.Join(repo, ".toolhost", "worktrees"))
			symlink(t, filepath.Join(outside, "authorized_keys"), filepath.Join(repo, ".toolhost", "worktrees", ".gitignore"))
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			repo := newRepo(t)
			outside := t.TempDir()
			tc.setup(t, repo, outside)
			m, err := Create(context.Background(), repo, "team/fix", false)
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), "outside the repository") {
					t.Errorf("Create = %v, %v; want a refusal naming the link", m, err)
				}
			} else if err != nil {
				t.Fatalf("Create: %v", err)
			}
			entries, _ := os.ReadDir(outside)
			if len(entries) != 0 {
				t.Errorf("Create wrote outside the repository: %v", entries)
			}
		})
	}
}

func mkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
