package agent

import (
	"context"
	"fmt"

	"github.com/toolhost/toolhost/tools/engine"
	"github.com/toolhost/toolhost/tools/worktree"
)

// IsolatedPipeline builds, for a folder, a pipeline whose tools work in a
// workspace rooted there (the session's settings and permission mode, no MCP
// servers); done releases what it holds. The session provides it, since it
// knows how its tools are put together.
type IsolatedPipeline func(root string) (p *engine.Pipeline, done func(), err error)

// isolatedLoop runs the built-in loop in a git worktree of its own
// (isolation "worktree", as in Claude Code): the worktree is made from the
// current commit, the sub-agent's tools work in it, and afterwards it is
// removed when the sub-agent changed nothing, else kept and named in the
// report, for the caller to review and merge.
type isolatedLoop struct {
	loop  Loop
	root  string
	build IsolatedPipeline
	// trusted: the user trusts the folder, so git may run its hooks.
	trusted bool
}

func (s *isolatedLoop) Spawn(ctx context.Context, req SpawnRequest) (string, error) {
	m, err := worktree.Create(ctx, s.root, "", s.trusted)
	if err != nil {
		return "", fmt.Errorf("isolation \"worktree\" needs a git worktree: %w", err)
	}
	p, done, err := s.build(m.Path)
	if err != nil {
		_ = m.Remove(context.WithoutCancel(ctx))
		return "", fmt.Errorf("the sub-agent's tools could not be set up in the worktree %s: %w", m.Path, err)
	}
	loop := s.loop
	loop.Pipeline, loop.Root = p, m.Path
	text, err := loop.Spawn(ctx, req)
	done()
	// Cleaning up must happen even when the call was cancelled.
	kept, cerr := m.RemoveIfClean(context.WithoutCancel(ctx))
	note := ""
	switch {
	case cerr != nil:
		note = fmt.Sprintf("The sub-agent worked in the worktree %s (branch %s), which could not be checked or removed (%v); look at it with git worktree list.", m.Path, m.Branch, cerr)
	case kept:
		note = fmt.Sprintf("The sub-agent worked in the git worktree %s on branch %s, which holds its changes: review them there (git -C %s status, git diff %s) and merge the branch, or remove it with git worktree remove.", m.Path, m.Branch, m.Path, m.Base)
	default:
		note = "The sub-agent worked in a git worktree of its own and changed nothing there; the worktree was removed."
	}
	if err != nil {
		return "", fmt.Errorf("%w. %s", err, note)
	}
	return text + "\n\n[" + note + "]", nil
}
