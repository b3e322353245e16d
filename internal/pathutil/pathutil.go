// Package pathutil holds the path questions several packages ask the same
// way: where a path really lands once symlinks are resolved, and whether
// it lies in a folder. The workspace's inside test, the permission
// checker and the batch scheduler must agree on them.
package pathutil

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxLinkHops bounds how many symlinks RealPath follows, as the kernel's
// ELOOP does.
const maxLinkHops = 40

// RealPath returns where p (absolute and clean) really leads: every symlink on the way
// is followed, including a dangling one, whose target is taken as the place
// (a repository can ship a link to a file that does not exist yet, and a
// write through it would create that file). The part of the path that does
// not exist is kept as written. A loop of links leaves the rest unresolved.
func RealPath(p string) string {
	p = filepath.Clean(p)
	if !filepath.IsAbs(p) {
		return p
	}
	resolved := string(filepath.Separator)
	rest := splitPath(p)
	hops := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, c)
		st, err := os.Lstat(next)
		if err != nil {
			// Missing (or unreadable): the rest cannot be links we could see.
			return filepath.Join(append([]string{next}, rest...)...)
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		target, err := os.Readlink(next)
		hops++
		if err != nil || hops > maxLinkHops {
			return filepath.Join(append([]string{next}, rest...)...)
		}
		if filepath.IsAbs(target) {
			resolved = string(filepath.Separator)
		}
		rest = append(splitPath(target), rest...)
	}
	return resolved
}

func splitPath(p string) []string {
	return strings.Split(filepath.ToSlash(p), "/")
}

// Within reports whether p is dir or lies below it. Both are absolute and
// clean; symlinks are not resolved (see RealPath).
func Within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
