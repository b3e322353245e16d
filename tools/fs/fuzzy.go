package fs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/toolhost/toolhost/internal/visible"
	"github.com/toolhost/toolhost/workspace"
)

// fuzzyMatch implements paths.fuzzy for a path that must exist: when abs
// does not exist (on disk or as an open document) but its folder does, and
// exactly one entry of that folder is a close name (see similarNames) and a
// regular file inside the workspace, that file is returned with a note for
// the model. Otherwise abs comes back unchanged with no note. Read calls it
// in Access as well as in Execute, so permission rules judge the file that
// is actually read.
func fuzzyMatch(ws *workspace.Workspace, abs string) (string, string) {
	if !ws.FuzzyPaths() {
		return abs, ""
	}
	if _, _, open := ws.Document(abs); open {
		return abs, ""
	}
	if _, err := os.Lstat(abs); !errors.Is(err, fs.ErrNotExist) {
		return abs, ""
	}
	cands := similarNames(filepath.Dir(abs), filepath.Base(abs), 2)
	if len(cands) != 1 {
		return abs, ""
	}
	st, err := os.Lstat(cands[0])
	if err != nil || !st.Mode().IsRegular() || !ws.Inside(cands[0]) {
		return abs, ""
	}
	return cands[0], "Note: " + visible.Name(abs) + " does not exist; read " + visible.Name(cands[0]) + ", the only close match (paths.fuzzy)."
}
