// Package protect knows the files that decide what toolhost and git may
// run: the settings and hooks under .toolhost/, the project's MCP servers
// in .mcp.json, git's hooks and its config (which can name commands:
// core.hooksPath, core.fsmonitor, filter drivers), also those of
// submodules, worktrees and nested repositories, and the editors' own
// folder files that run commands. A write to one would let the model widen
// its own permissions for the next session: the permission checker asks
// about it whatever the rules, the Bash risk label rates it high, and the
// sandbox mounts these files read-only (SandboxBinds). One list serves all
// three, so they cannot disagree about what is protected.
//
// Notes (.toolhost/memory/) and the plan file are data, not configuration,
// and are not protected.
package protect

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/internal/pathutil"
	"github.com/toolhost/toolhost/settings"
)

// Path reports whether rel, a slash-separated path relative to a
// workspace root, is protected.
func Path(rel string) bool {
	switch {
	case rel == ".mcp.json", gitControlled(rel), editorControlled[rel]:
		return true
	case rel == ".toolhost":
		return true
	case strings.HasPrefix(rel, ".toolhost/"):
		inner := strings.TrimPrefix(rel, ".toolhost/")
		return inner != "plan.md" && inner != "memory" && !strings.HasPrefix(inner, "memory/")
	}
	return false
}

// editorControlled are the editors' own files in a folder that run
// commands without a toolhost prompt: VS Code's folder settings
// (toolhost.path, terminal and tool paths, automatic tasks) and tasks
// (runOn: folderOpen), Neovim's exrc files.
var editorControlled = map[string]bool{
	".vscode/settings.json": true,
	".vscode/tasks.json":    true,
	".nvim.lua":             true,
	".nvimrc":               true,
	".exrc":                 true,
}

// gitControlled reports whether rel is a git file that can name a command,
// wherever git looks for one: the config and hooks of the repository, of a
// submodule (.git/modules/NAME/), of a worktree (config.worktree) and of a
// repository nested in the workspace (vendor/lib/.git/), and a .git file,
// which sends git to another folder's config and hooks.
func gitControlled(rel string) bool {
	segs := strings.Split(rel, "/")
	for i, s := range segs {
		if s != ".git" {
			continue
		}
		rest := segs[i+1:]
		if len(rest) == 0 {
			// The .git folder itself is decided by GitFile: naming it
			// (find -name .git) is no write, replacing it with a file is.
			continue
		}
		if slices.Contains(rest, "hooks") {
			return true
		}
		if last := rest[len(rest)-1]; last == "config" || last == "config.worktree" {
			return true
		}
	}
	return false
}

// UserFile reports a file of the user's own that decides what
// toolhost or git may run: toolhost's user folder (settings, trusted
// folders) and git's global config, which names hooks and commands for
// every repository. Write and Edit cannot reach them (they are outside the
// workspace); a Bash command that names one is not pre-approved either.
func UserFile(abs, home string) bool {
	var dirs []string
	if p := settings.DefaultUserConfigPath(); p != "" {
		dirs = append(dirs, filepath.Dir(p))
	}
	abs = pathutil.FoldCase(abs)
	if home != "" {
		if abs == pathutil.FoldCase(filepath.Join(home, ".gitconfig")) {
			return true
		}
		dirs = append(dirs, filepath.Join(home, ".config", "git"))
	}
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		dirs = append(dirs, filepath.Join(x, "git"))
	}
	for _, dir := range dirs {
		dir = pathutil.FoldCase(dir)
		if abs == dir || strings.HasPrefix(abs, dir+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// GitFile reports a path named .git that is not a folder: a .git file
// ("gitdir: elsewhere") sends git to another folder's config and hooks.
func GitFile(abs string) bool {
	if pathutil.FoldCase(filepath.Base(abs)) != ".git" {
		return false
	}
	st, err := os.Stat(abs)
	return err != nil || !st.IsDir()
}

// GitConfigWrite reports a `git config` (possibly after git's global
// options) that is not only a read: core.hooksPath, core.fsmonitor and
// filter drivers in .git/config run commands.
func GitConfigWrite(argv []string) bool {
	i := 1
	for i < len(argv) && strings.HasPrefix(argv[i], "-") {
		if argv[i] == "-C" || argv[i] == "-c" {
			i++
		}
		i++
	}
	if len(argv) < 2 || argv[0] != "git" || i >= len(argv) || argv[i] != "config" {
		return false
	}
	// `git config KEY` alone reads.
	operands, write := 0, false
	for _, f := range argv[i+1:] {
		switch {
		case f == "-l", f == "--list", f == "get", f == "list", strings.HasPrefix(f, "--get"):
			return false
		case slices.Contains([]string{"--unset", "--unset-all", "--add", "--replace-all", "-e", "--edit"}, f):
			write = true
		case !strings.HasPrefix(f, "-"):
			operands++
		}
	}
	return write || operands >= 2
}

// Name reports whether a file named in a command (relative to the
// folder it runs in, or absolute) is a protected file of a workspace: the
// protected names are matched from any folder of the path on, since the
// command's folder and the root are not known here.
func Name(name string) bool {
	segs := strings.Split(filepath.ToSlash(filepath.Clean(name)), "/")
	for i := range segs {
		if Path(strings.Join(segs[i:], "/")) {
			return true
		}
	}
	return false
}

// SandboxBinds returns what a sandbox that mounts root writable must mount
// again so that the protected files in it stay as they are: pin, the
// folders between root and a protected file, each mounted over itself so
// that it cannot be renamed away and replaced (a mount point cannot be
// moved); readOnly, the protected files and folders that exist; and
// writable, the data inside a read-only folder that stays writable
// (notes, the plan file). Each list is in mount order, absolute, and holds
// only paths that exist; the decision of what is protected is
// Path's.
func SandboxBinds(root string) (pin, readOnly, writable []string) {
	candidates := []string{".mcp.json", ".toolhost", ".git", ".git/config", ".git/config.worktree", ".git/hooks"}
	for name := range editorControlled {
		candidates = append(candidates, name)
	}
	for _, pattern := range []string{".git/modules/*/config", ".git/modules/*/hooks", ".git/worktrees/*/config.worktree"} {
		matches, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(pattern)))
		for _, m := range matches {
			if rel, err := filepath.Rel(root, m); err == nil {
				candidates = append(candidates, filepath.ToSlash(rel))
			}
		}
	}
	slices.Sort(candidates)
	pinned := map[string]bool{}
	for _, rel := range candidates {
		abs := filepath.Join(root, filepath.FromSlash(rel))
		if _, err := os.Stat(abs); err != nil {
			continue
		}
		if !Path(rel) && !GitFile(abs) {
			continue
		}
		for dir := filepath.Dir(rel); dir != "."; dir = filepath.Dir(dir) {
			// A bind follows links: pinning a link would make where it
			// points writable.
			if d := filepath.Join(root, dir); !pinned[d] && noLinkBelow(root, dir) {
				pinned[d] = true
				pin = append(pin, d)
			}
		}
		readOnly = append(readOnly, abs)
	}
	// Parents before children, so that a pin is not mounted over a file
	// below it.
	slices.SortFunc(pin, func(a, b string) int { return strings.Count(a, "/") - strings.Count(b, "/") })
	for _, rel := range []string{".toolhost/memory", ".toolhost/plan.md"} {
		abs := filepath.Join(root, filepath.FromSlash(rel))
		if _, err := os.Stat(abs); err == nil && !Path(rel) && noLinkBelow(root, rel) {
			writable = append(writable, abs)
		}
	}
	return pin, readOnly, writable
}

// noLinkBelow reports whether no part of rel, below root, is a symlink, so
// that a writable bind of it stays inside root.
func noLinkBelow(root, rel string) bool {
	p := root
	for _, seg := range strings.Split(filepath.ToSlash(rel), "/") {
		p = filepath.Join(p, seg)
		st, err := os.Lstat(p)
		if err != nil || st.Mode()&os.ModeSymlink != 0 {
			return false
		}
	}
	return true
}
