// Package workspace owns the workspace roots and path resolution, the overlay
// of documents open in the editor, the read-state of the session (what the
// agent read, at which version), and applying changes: through the editor as
// workspace/applyEdit, or atomically on disk.
package workspace

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/internal/pathutil"
)

// Workspace is one session's view of the files: its roots, the documents the
// editor has open, and what the agent has read. Safe for concurrent use.
type Workspace struct {
	mu sync.RWMutex
	// roots are the workspace folders, absolute and cleaned, each pinned to
	// the folder it led to when added (pin.go); the first is the base of
	// relative paths.
	roots []pinnedRoot
	// extra are permissions.additionalDirectories, pinned as roots are:
	// inside the workspace for permission purposes, never a base for
	// relative paths.
	extra []pinnedRoot
	// outsideWrites is permissions.allowWritesOutsideWorkspace.
	outsideWrites bool
	// atRoot and fuzzy are the paths.atRoot and paths.fuzzy settings.
	atRoot, fuzzy bool
	// journal records the changes Modify makes; nil records nothing.
	journal *Journal

	// docs is the overlay of documents open in the editor.
	docs documents
	// reads is what the agent has read in this session, for freshness checks.
	reads readState
	// locks serialise changes to one path (check, apply, record).
	locks pathLocks
}

// New returns a workspace with the given roots (made absolute).
func New(roots ...string) *Workspace {
	w := &Workspace{}
	w.SetRoots(roots)
	return w
}

// SetRoots replaces the workspace folders, pinning each to the folder it
// leads to now (a root already open keeps its pin).
func (w *Workspace) SetRoots(roots []string) {
	abs := cleanRoots(roots)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.roots = repin(w.roots, abs)
}

// SetPathOptions sets paths.atRoot (a leading "@" means the first root)
// and paths.fuzzy (FuzzyPaths).
func (w *Workspace) SetPathOptions(atRoot, fuzzy bool) {
	w.mu.Lock()
	w.atRoot, w.fuzzy = atRoot, fuzzy
	w.mu.Unlock()
}

// FuzzyPaths reports paths.fuzzy: a tool reading a file that does not exist
// may take its single closest existing match instead, saying so.
func (w *Workspace) FuzzyPaths() bool {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.fuzzy
}

// SetAdditionalDirectories sets permissions.additionalDirectories, each
// pinned to the folder it leads to now (one set before keeps its pin).
// Unlike a root, an additional directory whose name leads elsewhere later
// does not stop the session: the folder it was pinned to stays inside the
// workspace, and its name's new target does not count as inside.
func (w *Workspace) SetAdditionalDirectories(dirs []string) {
	var abs []string
	for _, d := range dirs {
		if a, err := w.Resolve(d); err == nil {
			abs = append(abs, a)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.extra = repin(w.extra, abs)
}

// Roots returns the workspace folders as opened.
func (w *Workspace) Roots() []string {
	w.mu.RLock()
	defer w.mu.RUnlock()
	out := make([]string, len(w.roots))
	for i, r := range w.roots {
		out[i] = r.given
	}
	return out
}

// Root is the first workspace folder: the base of relative paths and the
// working directory of commands. Without roots it is the process's directory.
func (w *Workspace) Root() string {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if len(w.roots) > 0 {
		return w.roots[0].given
	}
	wd, _ := os.Getwd()
	return wd
}

// ErrEmptyPath is returned for an empty path.
var ErrEmptyPath = errors.New("the path is empty: give an absolute path or one relative to the workspace root")

// Resolve turns a path from tool input into an absolute, cleaned path:
// absolute paths as they are, "~/" from the home folder, relative paths
// against the first root, and with paths.atRoot "@..." from the first root. It does not resolve symlinks (see Inside).
//
// Listings show a name holding a newline, other control characters or
// white space at either end as a JSON string (internal/visible.Name), which
// decoded is the name exactly. So white space around the path is a slip and
// is dropped only when nothing exists by the path as given; and a path
// copied from a listing with its quotes ("\"/w/a\\nb\"") names what the
// string decodes to, when that exists and the path as given does not.
func (w *Workspace) Resolve(p string) (string, error) {
	trimmed := strings.TrimSpace(p)
	if trimmed == "" {
		return "", ErrEmptyPath
	}
	if trimmed != p {
		if abs, ok := w.existing(p); ok {
			return abs, nil
		}
	}
	if name, ok := quotedName(trimmed); ok {
		if _, ok := w.existing(trimmed); !ok {
			if abs, ok := w.existing(name); ok {
				return abs, nil
			}
		}
	}
	return w.resolve(trimmed)
}

// existing is p resolved as it is, when something exists there.
func (w *Workspace) existing(p string) (string, bool) {
	abs, err := w.resolve(p)
	if err != nil {
		return "", false
	}
	_, err = os.Lstat(abs)
	return abs, err == nil
}

// quotedName is the name a JSON string literal holds, when p is one.
func quotedName(p string) (string, bool) {
	if len(p) < 2 || p[0] != '"' || p[len(p)-1] != '"' {
		return "", false
	}
	var name string
	if json.Unmarshal([]byte(p), &name) != nil || strings.TrimSpace(name) == "" {
		return "", false
	}
	return name, true
}

// resolve is Resolve of a path taken as it is.
func (w *Workspace) resolve(p string) (string, error) {
	if strings.HasPrefix(p, "file://") {
		// A URI pasted as a path: decode it (%20 and the like).
		if fp, err := URIToPath(p); err == nil {
			p = fp
		} else {
			p = strings.TrimPrefix(p, "file://")
		}
	}
	if strings.HasPrefix(p, "@") {
		w.mu.RLock()
		atRoot := w.atRoot
		w.mu.RUnlock()
		if atRoot {
			// "@", "@src/a.go" and "@/src/a.go" name paths from the first root.
			p = "." + string(filepath.Separator) + strings.TrimLeft(p[1:], `/\`)
		}
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("cannot expand ~: %w", err)
		}
		p = filepath.Join(home, strings.TrimPrefix(p, "~"))
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(w.Root(), p)
	}
	return filepath.Clean(p), nil
}

// Inside reports whether an absolute path lies inside a root (the folder
// pinned when it was opened) or an additional directory once symlinks are
// resolved (RealPath: a dangling link counts where it points).
func (w *Workspace) Inside(abs string) bool {
	real := pathutil.RealPath(abs)
	for _, f := range w.RealFolders() {
		if pathutil.Within(f, real) {
			return true
		}
	}
	return false
}
