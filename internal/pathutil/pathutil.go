// Package pathutil holds the path questions several packages ask the same
// way: where a path really lands once symlinks are resolved, and whether
// it lies in a folder. The workspace's inside test, the permission
// checker and the batch scheduler must agree on them.
package pathutil

import (
	"path/filepath"
	"strings"
)

// RealPath resolves symlinks in the longest existing prefix of p, so a
// path that does not exist yet is judged by the folder it would land in.
// p is absolute and clean; when nothing of it resolves it is returned as
// is.
func RealPath(p string) string {
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

// Within reports whether p is dir or lies below it. Both are absolute and
// clean; symlinks are not resolved (see RealPath).
func Within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
