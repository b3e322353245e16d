package permission

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/internal/pathutil"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/permission/protect"
	"github.com/toolhost/toolhost/tools/permission/shellcmd"
)

// The files that decide what toolhost and git may run are package
// protect's list. A write to one asks in default and acceptEdits, is
// refused in plan and dontAsk, and runs unasked only in bypassPermissions;
// no allow rule pre-approves it.

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
	for i := range d.sub.command.Parts {
		part := &d.sub.command.Parts[i]
		if protect.GitConfigWrite(part.Argv) {
			out = append(out, ".git/config (git config)")
		}
		for _, g := range part.Globs {
			if m, ok := d.globNamesProtected(g, part.Dirs, d.sub.command.DotGlob); ok {
				out = append(out, m+" (matched by "+g+")")
			}
		}
		for j, f := range slices.Concat(part.Targets, part.Names) {
			if _, after, ok := strings.Cut(f, "="); ok && j >= len(part.Targets) {
				f = after
			}
			// A redirection's target is always looked at; an argument at
			// the root only when it could name a protected file (they all
			// hold a dot), to keep the per-call cost down.
			if f == "" || j >= len(part.Targets) && !strings.ContainsAny(f, "./") && slices.Equal(part.Dirs, []string{""}) {
				continue
			}
			if d.namesProtected(f, part.Dirs) {
				out = append(out, f)
			}
		}
	}
	return out
}

// namesProtected reports whether f, a word of a command that runs in one
// of dirs (see shellcmd.Simple.Dirs), names a protected file. In a folder
// the command computes, f may be inside any folder protected files live
// in. Not filepath.Join: a clean would take ".." too early.
func (d *decision) namesProtected(f string, dirs []string) bool {
	for _, dir := range dirs {
		candidates := []string{f}
		switch {
		case filepath.IsAbs(f) || strings.HasPrefix(f, "~") || dir == "":
		case dir == shellcmd.UnknownDir:
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
		if dir == shellcmd.UnknownDir {
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
	if protect.UserFile(p.abs, d.c.home) || protect.UserFile(p.real, d.c.home) {
		return true
	}
	for _, root := range d.pm.roots {
		for _, abs := range []string{p.abs, p.real} {
			rel, err := filepath.Rel(root, abs)
			if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
				continue
			}
			if protect.Path(pathutil.FoldCase(filepath.ToSlash(rel))) || protect.GitFile(abs) {
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
