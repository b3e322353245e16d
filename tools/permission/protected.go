package permission

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/internal/pathutil"
	"github.com/toolhost/toolhost/settings"

	"github.com/toolhost/toolhost/tools"
)

// Protected files decide what toolhost and git may run: the settings and
// hooks under .toolhost/, the project's MCP servers in .mcp.json, git's
// hooks and its config (which can name commands: core.hooksPath,
// core.fsmonitor, filter drivers), also those of submodules, worktrees and
// nested repositories. A write to one would let the model
// widen its own permissions for the next session, so it asks in default
// and acceptEdits, is refused in plan and dontAsk, and runs unasked only in
// bypassPermissions; no allow rule pre-approves it.
//
// Notes (.toolhost/memory/) and the plan file are data, not configuration,
// and are not protected.

// protectedPath reports whether rel, a slash-separated path relative to a
// workspace root, is protected.
func protectedPath(rel string) bool {
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
			// The .git folder itself is decided by isProtected: naming it
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

// userControlled reports a file of the user's own that decides what
// toolhost or git may run: toolhost's user folder (settings, trusted
// folders) and git's global config, which names hooks and commands for
// every repository. Write and Edit cannot reach them (they are outside the
// workspace); a Bash command that names one is not pre-approved either.
func (d *decision) userControlled(abs string) bool {
	var dirs []string
	if p := settings.DefaultUserConfigPath(); p != "" {
		dirs = append(dirs, filepath.Dir(p))
	}
	abs = pathutil.FoldCase(abs)
	if home := d.c.home; home != "" {
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

// gitFile reports a path named .git that is not a folder: a .git file
// ("gitdir: elsewhere") sends git to another folder's config and hooks.
func gitFile(abs string) bool {
	if pathutil.FoldCase(filepath.Base(abs)) != ".git" {
		return false
	}
	st, err := os.Stat(abs)
	return err != nil || !st.IsDir()
}

// protectedCommand returns the protected files a Bash command names, as
// bash reads its words: an argument (or the part after "=" in an option),
// a redirection's target, in every folder a cd or pushd before it may have
// led to; and ".git/config" for a `git config` that sets rather than reads.
// It cannot see a file a command reaches less plainly (a variable, a
// script, another program); it keeps an allow rule from pre-approving the
// plain ones.
func (d *decision) protectedCommand() []string {
	if d.sub.command == nil {
		return nil
	}
	var out []string
	for i := range d.sub.command.parts {
		part := &d.sub.command.parts[i]
		if gitConfigWrite(part.argv) {
			out = append(out, ".git/config (git config)")
		}
		for _, g := range part.globs {
			if m, ok := d.globNamesProtected(g, part.dirs, d.sub.command.dotGlob); ok {
				out = append(out, m+" (matched by "+g+")")
			}
		}
		for j, f := range slices.Concat(part.targets, part.names) {
			if _, after, ok := strings.Cut(f, "="); ok && j >= len(part.targets) {
				f = after
			}
			// A redirection's target is always looked at; an argument at
			// the root only when it could name a protected file (they all
			// hold a dot), to keep the per-call cost down.
			if f == "" || j >= len(part.targets) && !strings.ContainsAny(f, "./") && slices.Equal(part.dirs, []string{""}) {
				continue
			}
			if d.namesProtected(f, part.dirs) {
				out = append(out, f)
			}
		}
	}
	return out
}

// namesProtected reports whether f, a word of a command that runs in one
// of dirs (see simpleCommand.dirs), names a protected file. In a folder
// the command computes, f may be inside any folder protected files live
// in. Not filepath.Join: a clean would take ".." too early.
func (d *decision) namesProtected(f string, dirs []string) bool {
	for _, dir := range dirs {
		candidates := []string{f}
		switch {
		case filepath.IsAbs(f) || strings.HasPrefix(f, "~") || dir == "":
		case dir == unknownDir:
			candidates = append(candidates, ".git/"+f, ".toolhost/"+f, ".vscode/"+f)
		default:
			candidates[0] = dir + "/" + f
		}
		if slices.ContainsFunc(candidates, d.protectedWord) {
			return true
		}
	}
	return false
}

// globNamesProtected reports a protected file among those the pattern g
// matches now, in one of dirs: bash matches a glob against the files that
// exist when the command runs, dot files only by a pattern starting with a
// dot unless dotGlob. A pattern that cannot be read counts as matching; so
// does a folder the command computes.
func (d *decision) globNamesProtected(g string, dirs []string, dotGlob bool) (string, bool) {
	// Bash's [!a] is Go's [^a].
	g = strings.ReplaceAll(g, "[!", "[^")
	if _, err := filepath.Match(g, ""); err != nil {
		return g, true
	}
	for _, dir := range dirs {
		if dir == unknownDir {
			return g, true
		}
		p := g
		if dir != "" && !filepath.IsAbs(g) && !strings.HasPrefix(g, "~") {
			p = dir + "/" + g
		}
		abs, err := d.c.ws.Resolve(p)
		if err != nil {
			continue
		}
		matches, _ := filepath.Glob(abs)
		for _, m := range matches {
			if !dotGlob && hiddenByGlob(abs, m) {
				continue
			}
			if d.protectedWord(m) {
				return m, true
			}
		}
	}
	return "", false
}

// hiddenByGlob reports a match of pattern that bash would not make: a
// name starting with a dot where the pattern's part does not.
func hiddenByGlob(pattern, match string) bool {
	ps := strings.Split(pattern, string(filepath.Separator))
	ms := strings.Split(match, string(filepath.Separator))
	if len(ps) != len(ms) {
		return false
	}
	for i := range ps {
		if strings.HasPrefix(ms[i], ".") && !strings.HasPrefix(ps[i], ".") {
			return true
		}
	}
	return false
}

// protectedWord reports whether the path p (relative to the workspace
// root) is protected.
func (d *decision) protectedWord(p string) bool {
	abs, err := d.c.ws.Resolve(p)
	if err != nil {
		return false
	}
	real := pathutil.RealPath(abs)
	if strings.Contains(p, "..") {
		// The shell leaves ".." to the kernel, which takes it after
		// following a link, not before as a clean does.
		if base, err := d.c.ws.Resolve("."); err == nil {
			real = kernelPath(p, base)
		}
	}
	return d.isProtected(resolvedPath{given: p, abs: abs, real: real})
}

// kernelPath resolves p (relative to base unless absolute) as the kernel
// does: each ".." goes up from where the links before it lead.
func kernelPath(p, base string) string {
	cur := base
	if filepath.IsAbs(p) {
		cur = "/"
	}
	for _, s := range strings.Split(p, "/") {
		switch s {
		case "", ".":
		case "..":
			cur = filepath.Dir(pathutil.RealPath(cur))
		default:
			cur = filepath.Join(cur, s)
		}
	}
	return pathutil.RealPath(cur)
}

// gitConfigWrite reports a `git config` (possibly after git's global
// options) that is not only a read: core.hooksPath, core.fsmonitor and
// filter drivers in .git/config run commands.
func gitConfigWrite(argv []string) bool {
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
		case has("--unset --unset-all --add --replace-all -e --edit", f):
			write = true
		case !strings.HasPrefix(f, "-"):
			operands++
		}
	}
	return write || operands >= 2
}

// protectedWrites returns the call's writes to protected files, as given.
// Both the path as given and the path with symlinks resolved are checked
// against each root in both forms, so a link cannot hide a protected file.
func (d *decision) protectedWrites() []string {
	var out []string
	for _, p := range d.sub.writes {
		if d.isProtected(p) {
			out = append(out, p.given)
		}
	}
	return out
}

func (d *decision) isProtected(p resolvedPath) bool {
	if d.userControlled(p.abs) || d.userControlled(p.real) {
		return true
	}
	for _, root := range d.pm.roots {
		for _, abs := range []string{p.abs, p.real} {
			rel, err := filepath.Rel(root, abs)
			if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
				continue
			}
			if protectedPath(pathutil.FoldCase(filepath.ToSlash(rel))) || gitFile(abs) {
				return true
			}
		}
	}
	return false
}

// decideProtected decides a call that writes protected files; done is
// false when the mode lets the usual decision go on (bypassPermissions).
func (d *decision) decideProtected(files []string) (v tools.PermissionDecision, done bool) {
	switch d.mode {
	case tools.ModeBypassPermissions:
		return tools.PermissionDecision{}, false
	case tools.ModeDontAsk, tools.ModePlan:
		return denyWith("%s would change %s, which decides what toolhost or git may run (settings, hooks, MCP servers). In %s mode such a change is refused. Tell the user what you want to change and why; they can make it themselves.",
			d.what(), strings.Join(files, ", "), d.mode), true
	}
	d.protected = true
	return askBecause("it changes " + strings.Join(files, ", ") + ", which decides what toolhost or git may run; no rule can allow that without asking"), true
}

// SandboxBinds returns what a sandbox that mounts root writable must mount
// again so that the protected files in it stay as they are: pin, the
// folders between root and a protected file, each mounted over itself so
// that it cannot be renamed away and replaced (a mount point cannot be
// moved); readOnly, the protected files and folders that exist; and
// writable, the data inside a read-only folder that stays writable
// (notes, the plan file). Each list is in mount order, absolute, and holds
// only paths that exist; the decision of what is protected is
// protectedPath's.
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
		if !protectedPath(rel) && !gitFile(abs) {
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
		if _, err := os.Stat(abs); err == nil && !protectedPath(rel) && noLinkBelow(root, rel) {
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
