package permission

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/internal/pathutil"

	"github.com/toolhost/toolhost/tools"
)

// Protected files decide what toolhost and git may run: the settings and
// hooks under .toolhost/, the project's MCP servers in .mcp.json, git's
// hooks and its config (which can name commands: core.hooksPath,
// core.fsmonitor, filter drivers). A write to one would let the model
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
	case rel == ".mcp.json", rel == ".git/config", rel == ".git/hooks", strings.HasPrefix(rel, ".git/hooks/"):
		return true
	case rel == ".toolhost":
		return true
	case strings.HasPrefix(rel, ".toolhost/"):
		inner := strings.TrimPrefix(rel, ".toolhost/")
		return inner != "plan.md" && inner != "memory" && !strings.HasPrefix(inner, "memory/")
	}
	return false
}

// protectedCommand returns the protected files a Bash command names (as a
// redirection target, an argument, or after "=" in an option), and
// ".git/config" for a `git config` that sets rather than reads. It cannot
// see every way a command writes a file (a cd first, a glob); it keeps an
// allow rule from pre-approving the plain ones.
func (d *decision) protectedCommand() []string {
	if d.sub.command == nil {
		return nil
	}
	var out []string
	for _, part := range d.sub.command.parts {
		fields := strings.Fields(part)
		if gitConfigWrite(fields) {
			out = append(out, ".git/config (git config)")
		}
		for _, f := range fields {
			f = strings.Trim(f, `'"`)
			f = strings.TrimLeft(f, "0123456789&>")
			if _, after, ok := strings.Cut(f, "="); ok {
				f = after
			}
			if f == "" || !strings.Contains(f, ".") {
				continue
			}
			abs, err := d.c.ws.Resolve(f)
			if err != nil {
				continue
			}
			if d.isProtected(resolvedPath{given: f, abs: abs, real: pathutil.RealPath(abs)}) {
				out = append(out, f)
			}
		}
	}
	return out
}

// gitConfigWrite reports a `git config` (possibly after git's global
// options) that is not only a read: core.hooksPath, core.fsmonitor and
// filter drivers in .git/config run commands.
func gitConfigWrite(fields []string) bool {
	if len(fields) < 2 || fields[0] != "git" {
		return false
	}
	i := 1
	for i < len(fields) && strings.HasPrefix(fields[i], "-") {
		if fields[i] == "-C" || fields[i] == "-c" {
			i++
		}
		i++
	}
	if i >= len(fields) || fields[i] != "config" {
		return false
	}
	for _, f := range fields[i+1:] {
		switch {
		case f == "-l", f == "--list", f == "get", f == "list", strings.HasPrefix(f, "--get"):
			return false
		}
	}
	// `git config KEY` alone reads.
	args := 0
	for _, f := range fields[i+1:] {
		if !strings.HasPrefix(f, "-") {
			args++
		}
	}
	return args >= 2 || slices.ContainsFunc(fields[i+1:], func(f string) bool {
		return f == "--unset" || f == "--unset-all" || f == "--add" || f == "--replace-all" || f == "-e" || f == "--edit"
	})
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
	for _, root := range d.pm.roots {
		for _, abs := range []string{p.abs, p.real} {
			rel, err := filepath.Rel(root, abs)
			if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
				continue
			}
			if protectedPath(filepath.ToSlash(rel)) {
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
