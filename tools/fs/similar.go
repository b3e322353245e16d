package fs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/toolhost/toolhost/internal/strdist"
	"github.com/toolhost/toolhost/internal/visible"
	"github.com/toolhost/toolhost/tools"
)

// notFound is the error result for a path that does not exist, with the
// closest names in the nearest existing folder ("did you mean").
func notFound(abs string) *tools.Result {
	dir, missing := filepath.Dir(abs), filepath.Base(abs)
	// Walk up to the nearest folder that exists; the first missing part is
	// what to match.
	for {
		st, err := os.Stat(dir)
		if err == nil && st.IsDir() {
			break
		}
		if !errors.Is(err, fs.ErrNotExist) || filepath.Dir(dir) == dir {
			return tools.ErrorResult("%s does not exist. Check the path (Glob can find files by name).", visible.Name(abs))
		}
		missing = filepath.Base(dir)
		dir = filepath.Dir(dir)
	}
	msg := visible.Name(abs) + " does not exist."
	if similar := similarNames(dir, missing, 5); len(similar) > 0 {
		for i, p := range similar {
			similar[i] = visible.Name(p)
		}
		msg += " Did you mean: " + strings.Join(similar, ", ") + "?"
	} else if missing != filepath.Base(abs) {
		msg += " The folder " + visible.Name(filepath.Join(dir, missing)) + " does not exist."
	}
	return tools.ErrorResult("%s Check the path (Glob can find files by name).", msg)
}

// similarNames returns up to n entries of dir whose names are close to name:
// equal ignoring case, the same stem with another extension, containing each
// other, or a small edit distance away. They come back as full paths, best
// first, as they are (visible.Name shows them).
func similarNames(dir, name string, n int) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	lname := strings.ToLower(name)
	stem := stemOf(lname)
	type scored struct {
		path  string
		score int
	}
	var found []scored
	for _, e := range entries {
		cand := strings.ToLower(e.Name())
		score := -1
		switch {
		case cand == lname:
			score = 0
		case stemOf(cand) == stem:
			score = 1
		case len(stem) >= 3 && strings.Contains(cand, stem),
			len(stemOf(cand)) >= 3 && strings.Contains(stem, stemOf(cand)):
			score = 2
		default:
			if d := strdist.Levenshtein(lname, cand); d <= max(2, len(lname)/4) {
				score = 2 + d
			}
		}
		if score >= 0 {
			found = append(found, scored{filepath.Join(dir, e.Name()), score})
		}
	}
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].score != found[j].score {
			return found[i].score < found[j].score
		}
		return found[i].path < found[j].path
	})
	var out []string
	for i := 0; i < len(found) && i < n; i++ {
		out = append(out, found[i].path)
	}
	return out
}

// stemOf is a lower-case name without its extension. A dotfile's name is
// its stem (".gitignore", not ""), since an empty stem would be contained
// in every name and match anything.
func stemOf(name string) string {
	if stem := strings.TrimSuffix(name, filepath.Ext(name)); stem != "" {
		return stem
	}
	return name
}
