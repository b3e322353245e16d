package worktree

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolhost/toolhost/internal/pathutil"
)

// Made is a worktree made for a piece of work: EnterWorktree's, or the one a
// sub-agent with isolation "worktree" runs in.
type Made struct {
	// Repo is the repository's top folder; Path the worktree; Branch its
	// new branch; Base the commit it started from.
	Repo, Path, Branch, Base string
	// Trusted: the user trusts the folder, so git runs the repository's
	// hooks and commands (see untrustedConfig).
	Trusted bool
}

// Create makes a worktree of the repository holding dir, named name ("" for
// a random name), under Dir on branch BranchPrefix+name, from HEAD; trusted
// says whether the user trusts the folder (git runs its hooks). Its
// errors are for the model: they say what to do.
func Create(ctx context.Context, dir, name string, trusted bool) (*Made, error) {
	repo, err := git(ctx, trusted, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("the workspace %s is not in a git repository, so there is no worktree to make (%v). Use git init first, or work without a worktree", dir, err)
	}
	base, err := git(ctx, trusted, repo, "rev-parse", "HEAD")
	if err != nil {
		return nil, fmt.Errorf("the repository %s has no commit yet, so a worktree has nothing to start from. Commit first", repo)
	}
	if name == "" {
		name = randomName()
	}
	if why := validName(name); why != "" {
		return nil, fmt.Errorf("the worktree name %q %s", name, why)
	}
	parent := filepath.Join(repo, filepath.FromSlash(Dir))
	m := &Made{Trusted: trusted, Repo: repo, Base: base, Path: filepath.Join(parent, filepath.FromSlash(name)), Branch: BranchPrefix + strings.ReplaceAll(name, "/", "-")}
	// A repository may ship .toolhost/worktrees, or a folder of a name's
	// path, as a link to elsewhere; git would follow it and check out (and
	// later remove) a worktree outside the repository.
	if err := insideRepo(repo, m.Path); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	if err := ensureIgnored(parent); err != nil {
		return nil, err
	}
	if _, err := os.Stat(m.Path); err == nil {
		return nil, fmt.Errorf("%s already exists. Switch into it with path, or choose another name", m.Path)
	}
	if _, err := git(ctx, trusted, repo, "worktree", "add", "-b", m.Branch, m.Path, "HEAD"); err != nil {
		return nil, fmt.Errorf("the worktree could not be made: %v. Choose another name, or remove the branch %s if it is left over", err, m.Branch)
	}
	return m, nil
}

// Pending lists the worktree's uncommitted files and its commits the base
// does not have.
func (m *Made) Pending(ctx context.Context) (files, commits []string, err error) {
	return pending(ctx, m.Trusted, &entered{path: m.Path, base: m.Base})
}

// Remove deletes the worktree and its branch, whatever they hold.
func (m *Made) Remove(ctx context.Context) error {
	if _, err := git(ctx, m.Trusted, m.Repo, "worktree", "remove", "--force", m.Path); err != nil {
		return err
	}
	_, err := git(ctx, m.Trusted, m.Repo, "branch", "-D", m.Branch)
	return err
}

// RemoveIfClean removes the worktree when it holds no work (no uncommitted
// file, no new commit) and reports whether it is kept.
func (m *Made) RemoveIfClean(ctx context.Context) (kept bool, err error) {
	files, commits, err := m.Pending(ctx)
	if err != nil {
		return true, err
	}
	if len(files) > 0 || len(commits) > 0 {
		return true, nil
	}
	return false, m.Remove(ctx)
}

// insideRepo checks that p, resolved through the links of its folders that
// exist, lies inside the repository folder repo.
func insideRepo(repo, p string) error {
	realRepo, err := filepath.EvalSymlinks(repo)
	if err != nil {
		return err
	}
	existing := p
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			break
		}
		existing = parent
	}
	real, err := filepath.EvalSymlinks(existing)
	if err != nil {
		return err
	}
	if !pathutil.Within(realRepo, real) {
		return fmt.Errorf("%s leads through a link to %s, outside the repository %s, so no worktree is made there. Remove the link, or choose another name", existing, real, repo)
	}
	return nil
}
