package workspace

import (
	"fmt"
	"os"
	"path/filepath"
)

// Pinned roots: a workspace folder is the folder that was opened, not
// whatever its name leads to later.
//
// The user opens ~/proj, a link to /data/proj; something re-points the link
// to / while the session runs. Resolving the root's name at each use would
// carry every tool to the new target, and everything there would count as
// inside the workspace. So each root is resolved once, when it is added:
// where its name led then (its real path) and the identity of the folder
// there (device and inode). The jail judges paths against that real path,
// every folder it opens to read or write through is checked to be that very
// folder, and CheckRoots, which the pipeline runs before every call,
// refuses the call while a root's name leads elsewhere, or its folder was
// removed: the editor would follow the name to the new place, so serving
// the old folder quietly would split the agent's view from the editor's.
// Reopening the folder pins it again. Another folder made at the same
// place is what the editor sees too: CheckRoots takes it as the pinned
// folder for the call that follows.
//
// permissions.additionalDirectories are pinned the same way, but one that
// moves does not stop the session (no command runs in it): the folder it
// was pinned to stays inside, its name's new target does not.

// pinnedRoot is one workspace folder as it was when added.
type pinnedRoot struct {
	// given is the folder as opened: absolute and clean, links kept.
	given string
	// real is where given led when pinned, every link resolved.
	real string
	// id is the folder that was there; nil while nothing was (the folder is
	// pinned when it first exists).
	id os.FileInfo
}

// pinRoot resolves the folder given (absolute and clean) now.
func pinRoot(given string) pinnedRoot {
	p := pinnedRoot{given: given, real: RealPath(given)}
	if st, err := os.Stat(p.real); err == nil && st.IsDir() {
		p.id = st
	}
	return p
}

// repin pins the folders given (absolute and clean), keeping the pin of one
// pinned in old already.
func repin(old []pinnedRoot, given []string) []pinnedRoot {
	pins := make([]pinnedRoot, len(given))
	for i, g := range given {
		pins[i] = pinRoot(g)
		for _, o := range old {
			if o.given == g && o.id != nil {
				pins[i] = o
			}
		}
	}
	return pins
}

// realPath is where the root leads for the jail: the pinned real path, or,
// before the folder existed, where its name leads now.
func (p pinnedRoot) realPath() string {
	if p.id == nil {
		return RealPath(p.given)
	}
	return p.real
}

// check reports a root whose name no longer leads to the place it was
// pinned to, or whose folder there is gone. Another folder at that same
// place (the folder removed and made again, a file system whose inode
// numbers are not stable, as FUSE ones may not be) is what the editor
// sees there too: the pin takes it, and the folders opened during the call
// are checked against it.
func (p *pinnedRoot) check() error {
	if now := RealPath(p.given); now != p.real {
		return &MovedError{Root: p.given, Was: p.real, Now: now}
	}
	st, err := os.Stat(p.real)
	if err != nil || !st.IsDir() {
		return &MovedError{Root: p.given, Was: p.real, Gone: true}
	}
	if !os.SameFile(st, p.id) {
		p.id = st
	}
	return nil
}

// MovedError refuses a call while a workspace folder is not the folder that
// was opened: its name (a link) leads elsewhere now, or the folder was
// removed; or refuses one step of a call (an open) when the folder there
// was replaced since the call began.
type MovedError struct {
	// Root is the folder as opened; Was is where it led then, Now where it
	// leads now (when that differs).
	Root, Was, Now string
	// Gone is set when nothing is at Was any more.
	Gone bool
}

func (e *MovedError) Error() string {
	const next = "so nothing was read, changed or run. Ask the user to reopen the folder (tools work on the folder that was opened, never on what its name leads to later)"
	switch {
	case e.Now != "" && e.Now != e.Was:
		return fmt.Sprintf("the workspace folder %s now leads to %s, not to %s, the folder that was opened (a link on its way was re-pointed, or the folder moved), %s", e.Root, e.Now, e.Was, next)
	case e.Gone:
		return fmt.Sprintf("the workspace folder %s (%s) no longer exists: it was removed or moved since it was opened, %s", e.Root, e.Was, next)
	}
	return fmt.Sprintf("the workspace folder %s (%s) was replaced by another folder while the call ran, %s", e.Root, e.Was, "so this step did not run. Run the call again")
}

// CheckRoots reports (a *MovedError) a workspace folder that is no longer
// the folder that was opened. A root that did not exist when added is
// pinned here once it does. The pipeline calls it before every call.
func (w *Workspace) CheckRoots() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range w.extra {
		if e := &w.extra[i]; e.id == nil {
			*e = pinRoot(e.given)
		} else {
			// One moved stays pinned where it was (it does not stop the
			// session); another folder at its place is taken.
			_ = e.check()
		}
	}
	for i := range w.roots {
		r := &w.roots[i]
		if r.id == nil {
			*r = pinRoot(r.given)
			continue
		}
		if err := r.check(); err != nil {
			return err
		}
	}
	return nil
}

// FolderReal returns where the workspace folder dir (absolute and clean:
// a root or an additional directory as given) leads for the jail: the
// folder it was pinned to, or, for a folder the workspace does not hold
// (yet), where it leads now. The permission checker judges a settings
// change with it before the workspace has taken the change.
func (w *Workspace) FolderReal(dir string) string {
	w.mu.RLock()
	defer w.mu.RUnlock()
	for _, group := range [][]pinnedRoot{w.roots, w.extra} {
		for _, p := range group {
			if p.given == dir {
				return p.realPath()
			}
		}
	}
	return RealPath(dir)
}

// RealRoots returns where the workspace folders led when they were opened
// (their pinned real paths), in the order of Roots.
func (w *Workspace) RealRoots() []string {
	w.mu.RLock()
	defer w.mu.RUnlock()
	out := make([]string, len(w.roots))
	for i, r := range w.roots {
		out[i] = r.realPath()
	}
	return out
}

// RealFolders returns every folder inside the workspace as the jail judges
// paths: the roots' pinned real paths, then the additional directories'.
// What makes folders writable by path (the Bash sandbox's binds) uses
// these, so that a folder's link re-pointed meanwhile makes nothing else
// writable.
func (w *Workspace) RealFolders() []string {
	w.mu.RLock()
	defer w.mu.RUnlock()
	out := make([]string, 0, len(w.roots)+len(w.extra))
	for _, group := range [][]pinnedRoot{w.roots, w.extra} {
		for _, p := range group {
			out = append(out, p.realPath())
		}
	}
	return out
}

// openFolder opens the workspace folder named folder (a root or an
// additional directory, as given or as its real path) to read or write
// beneath. The folder opened is checked to be the folder that was pinned,
// so one whose name was re-pointed, or that was replaced, is refused (a
// *MovedError) rather than written to or read from.
func (w *Workspace) openFolder(folder string) (*os.Root, error) {
	root, err := os.OpenRoot(folder)
	if err != nil {
		return nil, fmt.Errorf("open the workspace folder %s: %w", folder, err)
	}
	w.mu.RLock()
	var pin *pinnedRoot
	for _, group := range [][]pinnedRoot{w.roots, w.extra} {
		for i := range group {
			if r := &group[i]; pin == nil && r.id != nil && (r.given == folder || r.real == folder) {
				pin = r
			}
		}
	}
	var p pinnedRoot
	if pin != nil {
		p = *pin
	}
	w.mu.RUnlock()
	if pin == nil {
		return root, nil
	}
	st, err := root.Stat(".")
	if err != nil {
		root.Close()
		return nil, fmt.Errorf("open the workspace folder %s: %w", folder, err)
	}
	if !os.SameFile(st, p.id) {
		root.Close()
		moved := &MovedError{Root: p.given, Was: p.real, Now: RealPath(p.given)}
		if _, err := os.Stat(p.real); err != nil && moved.Now == p.real {
			moved.Gone = true
		}
		return nil, moved
	}
	return root, nil
}

// cleanRoots makes roots absolute and clean, dropping what cannot be.
func cleanRoots(roots []string) []string {
	abs := make([]string, 0, len(roots))
	for _, r := range roots {
		if a, err := filepath.Abs(r); err == nil {
			abs = append(abs, filepath.Clean(a))
		}
	}
	return abs
}
