package worktree

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolhost/toolhost/tools"
)

//go:embed exit.md
var exitDescription string

var exitSchema = tools.SchemaOf[exitParams](nil)

// exitParams is the input of ExitWorktree.
type exitParams struct {
	Action  string `json:"action" jsonschema:"keep leaves the worktree and branch on disk; remove deletes the worktree and, when EnterWorktree made it, its branch." schema:"enum=keep|remove"`
	Discard bool   `json:"discard_changes,omitempty" jsonschema:"Required true to remove a worktree with uncommitted files or unmerged commits; set it only after the user confirmed."`
}

// ExitOutput is ExitWorktree's structured result, in Claude Code's shape.
type ExitOutput struct {
	Action           string `json:"action"`
	OriginalCwd      string `json:"originalCwd"`
	WorktreePath     string `json:"worktreePath"`
	WorktreeBranch   string `json:"worktreeBranch,omitempty"`
	DiscardedFiles   int    `json:"discardedFiles,omitempty"`
	DiscardedCommits int    `json:"discardedCommits,omitempty"`
	Message          string `json:"message"`
}

// Exit is the ExitWorktree tool.
type Exit struct{ s *Session }

// NewExit returns ExitWorktree over the session's worktree state.
func NewExit(s *Session) *Exit { return &Exit{s: s} }

func (*Exit) Name() string                 { return "ExitWorktree" }
func (*Exit) Description() string          { return exitDescription }
func (*Exit) InputSchema() json.RawMessage { return exitSchema.JSON() }

// SideEffect is mutating: remove deletes a worktree and a branch.
func (*Exit) SideEffect() tools.SideEffect { return tools.SideEffectMutating }

// Risk: keeping is low; removing is high, critical when it discards work.
func (*Exit) Risk(in json.RawMessage) tools.Risk {
	var p exitParams
	_ = json.Unmarshal(in, &p)
	switch {
	case p.Action == "keep":
		return tools.RiskLow
	case p.Discard:
		return tools.RiskCritical
	}
	return tools.RiskHigh
}

// Docs implements tools.Documented.
func (*Exit) Docs() tools.Docs {
	return tools.Docs{
		Short: "Leave the session's worktree: keep it on disk, or remove it (and its branch).",
		Long: "The workspace roots return to what they were before EnterWorktree, and the client is told with " +
			MethodChanged + ". remove refuses a worktree with uncommitted files (ignored ones included, which it would delete too) or commits not in the original " +
			"checkout, listing them, unless discard_changes is true.",
		Examples: []tools.Example{
			{Title: "Keep the worktree for review", Input: json.RawMessage(`{"action":"keep"}`)},
			{Title: "Remove a merged worktree", Input: json.RawMessage(`{"action":"remove"}`)},
		},
	}
}

// Execute leaves the worktree.
func (t *Exit) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var p exitParams
	if err := json.Unmarshal(call.Input, &p); err != nil {
		return tools.ErrorResult("the input is not a valid ExitWorktree input (%v).", err), nil
	}
	s := t.s
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.active
	if e == nil {
		return tools.ErrorResult("the session is not in a worktree entered with EnterWorktree, so there is nothing to leave. Carry on where you are."), nil
	}
	// Trust belongs to the folder the session was opened on, not to the
	// worktree.
	trusted := s.isTrusted(e.roots[0])
	out := ExitOutput{Action: p.Action, OriginalCwd: e.roots[0], WorktreePath: e.path, WorktreeBranch: e.branch}
	if p.Action == "remove" {
		files, commits, err := pending(ctx, trusted, e)
		if err != nil {
			return tools.ErrorResult("could not check the worktree for unsaved work (%v), so it was not removed. Use action keep, or look with Bash (git status).", err), nil
		}
		if (len(files) > 0 || len(commits) > 0) && !p.Discard {
			return tools.ErrorResult("the worktree %s has %s, which removing it would throw away:\n%s\nCommit or merge the work, leave with action keep, or ask the user and call again with discard_changes: true. The session is still in the worktree.",
				e.path, describePending(files, commits), strings.Join(append(files, commits...), "\n")), nil
		}
		out.DiscardedFiles, out.DiscardedCommits = len(files), len(commits)
		repo := e.roots[0]
		if _, err := git(ctx, trusted, repo, "worktree", "remove", "--force", e.path); err != nil {
			return tools.ErrorResult("the worktree could not be removed (%v); the session is still in it. Use action keep, or remove it with Bash.", err), nil
		}
		if e.created && e.branch != "" {
			if _, err := git(ctx, trusted, repo, "branch", "-D", e.branch); err != nil {
				out.Message = fmt.Sprintf(" The branch %s was kept: %v.", e.branch, err)
			}
		}
	}
	s.ws.SetRoots(e.roots)
	s.active = nil
	notify(ctx, call.Host, Changed{Action: p.Action, WorktreePath: e.path, Branch: e.branch, Root: e.roots[0]})
	var msg string
	if p.Action == "keep" {
		msg = fmt.Sprintf("Left the worktree %s; it and its branch %s stay on disk. The session is back in %s.", e.path, e.branch, e.roots[0])
	} else {
		msg = fmt.Sprintf("Removed the worktree %s", e.path)
		if e.created && out.Message == "" {
			msg += " and its branch " + e.branch
		}
		msg += fmt.Sprintf(". The session is back in %s.", e.roots[0]) + out.Message
	}
	out.Message = msg
	res := tools.TextResult(msg)
	res.Structured = out
	return res, nil
}

// pending lists the worktree's uncommitted files and the commits on its
// branch that the original checkout's commit does not have. Files that
// .gitignore hides count too (as "!! path" lines; git names an ignored
// folder once): "git worktree remove" deletes them with the rest, and an
// .env or a local config written in the worktree may be the only copy.
func pending(ctx context.Context, trusted bool, e *entered) (files, commits []string, err error) {
	// Quoted by git whatever the repository says (core.quotePath), so a
	// name holding a bidi override or a newline shows escaped, one a line.
	status, err := git(ctx, trusted, e.path, "-c", "core.quotePath=true", "status", "--porcelain", "--ignored")
	if err != nil {
		return nil, nil, err
	}
	for _, line := range strings.Split(status, "\n") {
		if strings.TrimSpace(line) != "" {
			files = append(files, line)
		}
	}
	log, err := git(ctx, trusted, e.path, "log", "--oneline", e.base+"..HEAD")
	if err != nil {
		return nil, nil, err
	}
	for _, line := range strings.Split(log, "\n") {
		if strings.TrimSpace(line) != "" {
			commits = append(commits, "commit "+line)
		}
	}
	return files, commits, nil
}

func describePending(files, commits []string) string {
	var parts []string
	ignored := 0
	for _, f := range files {
		if strings.HasPrefix(f, "!! ") {
			ignored++
		}
	}
	if n := len(files) - ignored; n > 0 {
		parts = append(parts, strconv.Itoa(n)+" uncommitted file(s)")
	}
	if ignored > 0 {
		parts = append(parts, strconv.Itoa(ignored)+" file(s) or folder(s) that .gitignore hides (marked !!)")
	}
	if len(commits) > 0 {
		parts = append(parts, strconv.Itoa(len(commits))+" commit(s) not in the original checkout")
	}
	return strings.Join(parts, " and ")
}
