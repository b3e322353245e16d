package worktree

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/tools"
)

//go:embed enter.md
var enterDescription string

var enterSchema = tools.SchemaOf[enterParams](nil)

// enterParams is the input of EnterWorktree.
type enterParams struct {
	Name string `json:"name,omitempty" jsonschema:"Name for a new worktree: segments of letters, digits, dots, underscores and dashes separated by /, at most 64 characters. A name is chosen when neither name nor path is given."`
	Path string `json:"path,omitempty" jsonschema:"An existing worktree of this repository (in git worktree list) to switch into instead of making one."`
}

// EnterOutput is EnterWorktree's structured result, in Claude Code's shape.
type EnterOutput struct {
	WorktreePath   string `json:"worktreePath"`
	WorktreeBranch string `json:"worktreeBranch,omitempty"`
	Message        string `json:"message"`
}

// Enter is the EnterWorktree tool.
type Enter struct{ s *Session }

// NewEnter returns EnterWorktree over the session's worktree state.
func NewEnter(s *Session) *Enter { return &Enter{s: s} }

func (*Enter) Name() string                 { return "EnterWorktree" }
func (*Enter) Description() string          { return enterDescription }
func (*Enter) InputSchema() json.RawMessage { return enterSchema.JSON() }

// SideEffect is mutating: it creates a worktree and a branch.
func (*Enter) SideEffect() tools.SideEffect { return tools.SideEffectMutating }

// Docs implements tools.Documented.
func (*Enter) Docs() tools.Docs {
	return tools.Docs{
		Short: "Move the session into a git worktree (a new one on its own branch, or an existing one).",
		Long: "A new worktree is made with git worktree add under " + Dir + "/<name> (a folder that ignores itself) " +
			"on branch " + BranchPrefix + "<name>. The worktree becomes the first workspace root: relative paths, " +
			"Glob, Grep and Bash work there; the previous roots stay in the workspace. The client is told with " +
			MethodChanged + ". One worktree at a time: ExitWorktree first to switch to another.",
		Examples: []tools.Example{
			{Title: "A new worktree", Input: json.RawMessage(`{"name":"fix-login"}`)},
			{Title: "Switch into an existing worktree", Input: json.RawMessage(`{"path":"/src/app/.toolhost/worktrees/fix-login"}`)},
		},
	}
}

// Access: the worktree is made in the workspace.
func (t *Enter) Access(json.RawMessage) tools.Access {
	return tools.Access{WritePaths: []string{filepath.FromSlash(Dir)}}
}

// Execute makes or finds the worktree and moves the session into it.
func (t *Enter) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var p enterParams
	if err := json.Unmarshal(call.Input, &p); err != nil {
		return tools.ErrorResult("the input is not a valid EnterWorktree input (%v).", err), nil
	}
	p.Name, p.Path = strings.TrimSpace(p.Name), strings.TrimSpace(p.Path)
	if p.Name != "" && p.Path != "" {
		return tools.ErrorResult("give name (a new worktree) or path (an existing one), not both."), nil
	}
	s := t.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active != nil {
		return tools.ErrorResult("the session is already in the worktree %s. Call ExitWorktree first (action keep or remove), then enter another.", s.active.path), nil
	}
	root := s.ws.Root()
	trusted := s.isTrusted(root)
	e := &entered{roots: s.ws.Roots()}
	if p.Path != "" {
		repo, err := git(ctx, trusted, root, "rev-parse", "--show-toplevel")
		if err != nil {
			return tools.ErrorResult("the workspace %s is not in a git repository, so it has no worktrees (%v).", root, err), nil
		}
		if e.base, err = git(ctx, trusted, repo, "rev-parse", "HEAD"); err != nil {
			return tools.ErrorResult("the repository %s has no commit yet. Commit first.", repo), nil
		}
		abs, err := s.ws.Resolve(p.Path)
		if err != nil {
			return tools.ErrorResult("path: %v.", err), nil
		}
		list, err := worktrees(ctx, trusted, repo)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(list, filepath.Clean(abs)) {
			return tools.ErrorResult("%s is not a worktree of %s; the worktrees are: %s. Give one of them, or name to make a new one.", abs, repo, strings.Join(list, ", ")), nil
		}
		e.path = filepath.Clean(abs)
		e.branch, _ = git(ctx, trusted, e.path, "branch", "--show-current")
	} else {
		m, err := Create(ctx, root, p.Name, trusted)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return tools.ErrorResult("%v.", err), nil
		}
		e.path, e.branch, e.base, e.created = m.Path, m.Branch, m.Base, true
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	s.ws.SetRoots(append([]string{e.path}, withoutPath(e.roots, e.path)...))
	s.active = e
	notify(ctx, call.Host, Changed{Action: "enter", WorktreePath: e.path, Branch: e.branch, Root: e.path})
	msg := fmt.Sprintf("Switched to the worktree %s", e.path)
	if e.created {
		msg = fmt.Sprintf("Created the worktree %s on branch %s and switched the session to it", e.path, e.branch)
	} else if e.branch != "" {
		msg += " (branch " + e.branch + ")"
	}
	msg += ". Relative paths, Glob, Grep and Bash now work there; the original folders stay reachable by absolute path. Leave with ExitWorktree."
	res := tools.TextResult(msg)
	res.Structured = EnterOutput{WorktreePath: e.path, WorktreeBranch: e.branch, Message: msg}
	return res, nil
}

// ensureIgnored writes a .gitignore of "*" in dir unless there is one, so
// the worktrees inside never show as untracked files. The file is only
// ever created, never opened through a link: a repository may ship it as
// a dangling link to a file elsewhere (O_EXCL does not follow it).
func ensureIgnored(dir string) error {
	f, err := os.OpenFile(filepath.Join(dir, ".gitignore"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = f.WriteString("# git worktrees made by toolhost's EnterWorktree\n*\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// withoutPath is roots without p.
func withoutPath(roots []string, p string) []string {
	var out []string
	for _, r := range roots {
		if filepath.Clean(r) != p {
			out = append(out, r)
		}
	}
	return out
}
