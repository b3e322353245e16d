package permission

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// resolvedPath is one path of a call, resolved for permission checks.
type resolvedPath struct {
	// given is the path as the tool reported it.
	given string
	// abs is absolute and cleaned; real has its symlinks resolved.
	abs, real string
	inside    bool
	isDir     bool
}

// pathMatcher matches Read/Edit rule specifiers, which are gitignore-style
// patterns:
//
//	//abs/path/**   from the filesystem root
//	~/path          from the home folder
//	/path, ./path   from each workspace root (anchored)
//	path            as in a .gitignore at each workspace root: without a
//	                slash (other than a trailing one) it matches at any depth
//
// A path matches when its cleaned form or its symlink-resolved form does,
// so a rule cannot be dodged through a link.
type pathMatcher struct {
	roots []string
	home  string
}

func (m *pathMatcher) match(spec string, p resolvedPath) bool {
	cands := []string{p.abs}
	if p.real != p.abs {
		cands = append(cands, p.real)
	}
	var bases []string
	pattern := spec
	switch {
	case strings.HasPrefix(spec, "//"):
		bases, pattern = []string{"/"}, spec[1:]
	case spec == "~" || strings.HasPrefix(spec, "~/"):
		if m.home == "" {
			return false
		}
		bases, pattern = []string{m.home}, "/"+strings.TrimPrefix(strings.TrimPrefix(spec, "~"), "/")
	case strings.HasPrefix(spec, "./"):
		bases, pattern = m.roots, spec[1:]
	default:
		bases = m.roots
	}
	for _, base := range bases {
		for _, b := range uniqueStrings(base, realPath(base)) {
			for _, c := range cands {
				if gitMatch(pattern, b, c, p.isDir) {
					return true
				}
			}
		}
	}
	return false
}

// gitMatch matches abs, taken relative to base, against a gitignore pattern.
func gitMatch(pattern, base, abs string, isDir bool) bool {
	rel, err := filepath.Rel(base, abs)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return false
	}
	// go-git's matcher needs something after "**"; a pattern that is only
	// "**" (or "/", "/**") covers everything under the base.
	if t := strings.Trim(pattern, "/"); t == "**" || t == "" {
		return true
	}
	comps := strings.Split(filepath.ToSlash(rel), "/")
	return gitignore.ParsePattern(pattern, nil).Match(comps, isDir) == gitignore.Exclude
}

// realPath resolves symlinks in the longest existing prefix of p, so a
// path that does not exist yet is judged by the folder it would land in.
func realPath(p string) string {
	rest := ""
	cur := p
	for {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// within reports whether p is root or below it (both cleaned).
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
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
