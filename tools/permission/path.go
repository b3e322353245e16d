package permission

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/toolhost/toolhost/internal/pathutil"
)

// resolvedPath is one path of a call, resolved for permission checks.
type resolvedPath struct {
	// given is the path as the tool reported it.
	given string
	// abs is absolute and cleaned; real has its symlinks resolved.
	abs, real string
	inside    bool
	isDir     bool
	// linkedOut: the path lies in a workspace folder as written, and
	// leads outside every folder through a symbolic link.
	linkedOut bool
}

// writtenWithin reports whether abs lies, as written, in one of folders
// (in their given or resolved form).
func writtenWithin(abs string, folders []string) bool {
	for _, f := range folders {
		if pathutil.Within(f, abs) || pathutil.Within(pathutil.RealPath(f), abs) {
			return true
		}
	}
	return false
}

// allowedAs is p as an allow rule sees it. A path that leaves the
// workspace through a link is allowed only by a rule naming where it
// leads: a rule naming the link's own path ("Read(docs/**)") reads as
// inside the folder to whoever trusts it, so it must not reach whatever
// the link points at (a repository can ship both the rule and the link).
// Deny and ask rules still match either form.
func (p resolvedPath) allowedAs() resolvedPath {
	if p.linkedOut {
		p.abs = p.real
	}
	return p
}

// where names p for messages: its path, and for a link the real path it
// leads to, which is what a call through it touches.
func (p resolvedPath) where() string {
	if p.real != p.abs {
		return p.abs + " (which leads to " + p.real + " through a symbolic link)"
	}
	return p.abs
}

// pathPattern is a compiled Read/Edit rule specifier, a gitignore-style
// pattern:
//
//	//abs/path/**   from the filesystem root
//	~/path          from the home folder
//	/path, ./path   from each workspace root (anchored)
//	path            as in a .gitignore at each workspace root: without a
//	                slash (other than a trailing one) it matches at any depth
type pathPattern struct {
	base baseKind
	// all is set for patterns that cover everything under the base ("**");
	// go-git's matcher needs something after "**".
	all     bool
	pattern gitignore.Pattern
}

type baseKind int

const (
	baseRoots baseKind = iota
	baseFilesystem
	baseHome
)

func compilePathPattern(spec string) *pathPattern {
	pp := &pathPattern{base: baseRoots}
	pattern := spec
	switch {
	case strings.HasPrefix(spec, "//"):
		pp.base, pattern = baseFilesystem, spec[1:]
	case spec == "~" || strings.HasPrefix(spec, "~/"):
		pp.base, pattern = baseHome, "/"+strings.TrimPrefix(strings.TrimPrefix(spec, "~"), "/")
	case strings.HasPrefix(spec, "./"):
		pattern = spec[1:]
	}
	if t := strings.Trim(pattern, "/"); t == "**" || t == "" {
		pp.all = true
	}
	pp.pattern = gitignore.ParsePattern(pattern, nil)
	return pp
}

// pathMatcher holds the folders patterns are relative to, each in its
// given and symlink-resolved form (a root's as pinned when it was opened,
// so a re-pointed root link does not carry rules to its new target). A
// path matches when its cleaned form or its resolved form does, so a rule
// cannot be dodged through a link.
type pathMatcher struct {
	roots []string
	home  []string
}

// newPathMatcher takes the roots as opened and, in the same order, where
// they led when opened.
func newPathMatcher(roots, realRoots []string, home string) *pathMatcher {
	m := &pathMatcher{}
	for i, r := range roots {
		real := r
		if i < len(realRoots) {
			real = realRoots[i]
		}
		m.roots = append(m.roots, uniqueStrings(r, real)...)
	}
	if home != "" {
		m.home = uniqueStrings(home, pathutil.RealPath(home))
	}
	return m
}

func (m *pathMatcher) match(pp *pathPattern, p resolvedPath) bool {
	bases := m.roots
	switch pp.base {
	case baseFilesystem:
		bases = []string{"/"}
	case baseHome:
		bases = m.home
	}
	for _, base := range bases {
		if pp.matchUnder(base, p.abs, p.isDir) || (p.real != p.abs && pp.matchUnder(base, p.real, p.isDir)) {
			return true
		}
	}
	return false
}

// matchUnder matches abs, taken relative to base (the filesystem's root
// for a "//" pattern, where abs is taken in its rulePath form).
func (pp *pathPattern) matchUnder(base, abs string, isDir bool) bool {
	rel, err := filepath.Rel(base, abs)
	if pp.base == baseFilesystem {
		rel, err = strings.TrimPrefix(rulePath(abs), "/"), nil
		if rel == "" {
			rel = "."
		}
	}
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return false
	}
	if pp.all {
		return true
	}
	return pp.pattern.Match(strings.Split(filepath.ToSlash(rel), "/"), isDir) == gitignore.Exclude
}

// rulePath is an absolute path as a rule writes it after its "//": with
// slashes, and on Windows, as Claude Code writes Windows paths in rules,
// the drive as the first folder, its letter lower-cased (C:\Users\a is
// /c/Users/a, matched by "//c/Users/**"), a share's server and name as
// the first two (\\server\share\a is /server/share/a).
func rulePath(abs string) string {
	vol := filepath.VolumeName(abs)
	rest := filepath.ToSlash(abs[len(vol):])
	switch {
	case vol == "":
		return rest
	case len(vol) == 2 && vol[1] == ':':
		return "/" + strings.ToLower(vol[:1]) + rest
	}
	return "/" + strings.TrimLeft(filepath.ToSlash(vol), "/") + rest
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func uniqueStrings(a, b string) []string {
	if a == b {
		return []string{a}
	}
	return []string{a, b}
}
