// Package worktree holds EnterWorktree and ExitWorktree: a git worktree for
// the session, as in Claude Code 2.1. Entering one makes it the session's
// first workspace root (relative paths, Glob, Grep and Bash work in it; the
// original folders stay in the workspace), and tells the editor; leaving it
// restores the roots and keeps or removes the worktree.
package worktree

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/internal/lifetime"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

// Dir is where new worktrees are made, under the repository's top folder.
// The folder ignores itself for git (a .gitignore of "*").
const Dir = ".toolhost/worktrees"

// BranchPrefix starts the name of the branch a new worktree gets.
const BranchPrefix = "worktree-"

// MethodChanged is the notification that tells the client the session
// entered or left a worktree.
const MethodChanged = "toolhost/worktreeChanged"

// Changed is the params of toolhost/worktreeChanged.
type Changed struct {
	// Action is "enter", "keep" or "remove".
	Action       string `json:"action"`
	WorktreePath string `json:"worktreePath"`
	Branch       string `json:"branch,omitempty"`
	// Root is the session's first workspace root from now on.
	Root string `json:"root"`
}

// Session is the worktree state of one session, shared by EnterWorktree
// and ExitWorktree. Safe for concurrent use.
type Session struct {
	ws *workspace.Workspace
	// trusted reports whether the user trusts a workspace folder; until
	// then git runs there without the repository's hooks and commands.
	trusted func(root string) bool

	mu sync.Mutex
	// active is the worktree the session is in; nil when in none.
	active *entered
}

// entered is a worktree the session went into.
type entered struct {
	path, branch string
	// created: EnterWorktree made it (and its branch), so ExitWorktree may
	// remove them.
	created bool
	// base is the commit the worktree started from (HEAD of the original
	// checkout), against which unmerged commits are counted.
	base string
	// roots are the workspace roots before entering.
	roots []string
}

// NewSession returns the worktree state of a session over ws; trusted
// reports whether the user trusts a workspace folder (nil: none).
func NewSession(ws *workspace.Workspace, trusted func(root string) bool) *Session {
	return &Session{ws: ws, trusted: trusted}
}

// isTrusted reports whether git may run the repository's own commands in
// root, the folder the session was opened on.
func (s *Session) isTrusted(root string) bool { return s.trusted != nil && s.trusted(root) }

// namePattern is what a worktree name may be: "/"-separated segments of
// letters, digits, dots, underscores and dashes.
var namePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$`) })

// validName reports why name cannot name a worktree ("" when it can).
func validName(name string) string {
	switch {
	case len(name) > 64:
		return "is longer than 64 characters"
	case !namePattern().MatchString(name):
		return "may only hold letters, digits, dots, underscores and dashes, in segments separated by /"
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == "." || seg == ".." {
			return "may not have . or .. as a segment"
		}
	}
	return ""
}

// randomName is a name for a worktree the model did not name.
func randomName() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return "session-" + hex.EncodeToString(b)
}

// A repository that arrives with its own .git (a tarball, not a clone)
// can name commands that git runs by itself: core.fsmonitor (on every
// index refresh: status, worktree add), hooks (post-checkout on worktree
// add, also through core.hooksPath), filter drivers (on checkout, for the
// paths .gitattributes names), submodule.recurse (checkout goes into
// submodules, whose own config may name commands), log.showSignature (gpg).
// Until the user trusts the folder, git runs with these turned off; the
// command line's config wins over every config file, and is passed on to
// the git processes git starts. Trusted, git behaves as configured.

// untrustedConfig is the config git gets in an untrusted folder.
var untrustedConfig = [][2]string{
	{"core.fsmonitor", "false"},
	{"core.hooksPath", "/dev/null"},
	{"submodule.recurse", "false"},
	{"log.showSignature", "false"},
	{"diff.external", ""},
	{"protocol.file.allow", "never"},
	{"protocol.ext.allow", "never"},
}

// filterKey matches the config keys of a filter driver that run a command
// or make its failure fatal.
var filterKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^filter\..*\.(clean|smudge|process|required)$`) })

// untrustedEnv returns the environment that gives git untrustedConfig and
// turns off every filter driver the repository in dir configures. The
// GIT_CONFIG_COUNT form keeps odd driver names intact (-c splits at "=").
func untrustedEnv(ctx context.Context, dir string) []string {
	pairs := untrustedConfig
	// git config reads the files and runs nothing.
	if out, err := exec.CommandContext(ctx, "git", "-C", dir, "config", "--null", "--name-only", "--get-regexp", `^filter\.`).Output(); err == nil {
		for _, key := range strings.Split(string(out), "\x00") {
			if filterKey().MatchString(key) {
				v := ""
				if strings.HasSuffix(key, ".required") {
					v = "false"
				}
				pairs = append(pairs, [2]string{key, v})
			}
		}
	}
	env := os.Environ()
	env = append(env, fmt.Sprintf("GIT_CONFIG_COUNT=%d", len(pairs)))
	for i, kv := range pairs {
		env = append(env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", i, kv[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", i, kv[1]))
	}
	return env
}

// git runs git in dir and returns its trimmed output; the error carries
// git's own message. Unless trusted, the repository's commands are off.
func git(ctx context.Context, trusted bool, dir string, args ...string) (string, error) {
	// git runs hooks in a trusted repository (post-checkout on a worktree's
	// checkout), which can leave processes behind: like every program a
	// call starts, they end with the server (internal/lifetime).
	var env []string
	if !trusted {
		env = untrustedEnv(ctx, dir)
	}
	cmd := lifetime.Command(ctx, env, "git", append([]string{"-C", dir}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
	}
	return strings.TrimSpace(out.String()), nil
}

// worktrees lists the paths of the repository's worktrees.
func worktrees(ctx context.Context, trusted bool, repo string) ([]string, error) {
	out, err := git(ctx, trusted, repo, "worktree", "list", "--porcelain")
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, line := range strings.Split(out, "\n") {
		if p, ok := strings.CutPrefix(line, "worktree "); ok {
			paths = append(paths, filepath.Clean(p))
		}
	}
	return paths, nil
}

// notify tells the client, when there is one.
func notify(ctx context.Context, host tools.Host, c Changed) {
	if host != nil {
		_ = host.Notify(ctx, MethodChanged, c)
	}
}
