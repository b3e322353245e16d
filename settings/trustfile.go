package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/toolhost/toolhost/internal/pathutil"
	"github.com/toolhost/toolhost/workspace"
)

// TrustFileName is the file, next to the user's settings file, that lists
// the folders the user trusts. It lives outside every repository, so no
// folder can trust itself.
const TrustFileName = "trusted-folders.json"

// DefaultTrustFilePath is TrustFileName in the user's config folder, or
// empty when there is none.
func DefaultTrustFilePath() string {
	p := DefaultUserConfigPath()
	if p == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(p), TrustFileName)
}

// TrustedFolder is one entry of the trust file.
type TrustedFolder struct {
	// Path is the folder's real path (symlinks resolved).
	Path      string    `json:"path"`
	TrustedAt time.Time `json:"trustedAt"`
}

// trustFileDoc is the file's shape.
type trustFileDoc struct {
	Folders []TrustedFolder `json:"folders"`
}

// trustFileMu serialises read-modify-write of trust files in this process;
// the file is replaced atomically, so readers never see half of it.
var trustFileMu sync.Mutex

// TrustFile is the list of folders the user trusts, kept at Path. A folder
// is trusted when it or a folder above it is listed, compared by real path
// so a link cannot borrow another folder's trust.
type TrustFile struct {
	Path string
}

// RealPath is dir made absolute with its symlinks resolved: the key of the
// trust file. A folder that does not exist is an error.
func RealPath(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("cannot resolve the folder %s: %w", dir, err)
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		return "", fmt.Errorf("%s is not a folder", dir)
	}
	return real, nil
}

// List returns the trusted folders, sorted by path. A missing file is an
// empty list.
func (f TrustFile) List() ([]TrustedFolder, error) {
	if f.Path == "" {
		return nil, nil
	}
	raw, err := os.ReadFile(f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", f.Path, err)
	}
	var doc trustFileDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("%s is not a valid trust file (%v); fix or remove it, then run toolhost trust again", f.Path, err)
	}
	sort.Slice(doc.Folders, func(i, j int) bool { return doc.Folders[i].Path < doc.Folders[j].Path })
	return doc.Folders, nil
}

// Covers returns the listed folder that trusts dir (dir itself or a folder
// above it), and whether there is one. dir is resolved first.
func (f TrustFile) Covers(dir string) (string, bool) {
	real, err := RealPath(dir)
	if err != nil {
		return "", false
	}
	list, err := f.List()
	if err != nil {
		return "", false
	}
	for _, t := range list {
		if pathutil.Within(t.Path, real) {
			return t.Path, true
		}
	}
	return "", false
}

// Trust adds dir (by its real path) and returns that path.
func (f TrustFile) Trust(dir string) (string, error) {
	real, err := RealPath(dir)
	if err != nil {
		return "", err
	}
	return real, f.edit(func(doc *trustFileDoc) {
		for _, t := range doc.Folders {
			if t.Path == real {
				return
			}
		}
		doc.Folders = append(doc.Folders, TrustedFolder{Path: real, TrustedAt: time.Now().UTC().Truncate(time.Second)})
	})
}

// Revoke removes dir (by its real path, or as written when it no longer
// exists) and reports whether it was listed.
func (f TrustFile) Revoke(dir string) (bool, error) {
	key, err := RealPath(dir)
	if err != nil {
		if key, err = filepath.Abs(dir); err != nil {
			return false, err
		}
	}
	found := false
	err = f.edit(func(doc *trustFileDoc) {
		kept := doc.Folders[:0]
		for _, t := range doc.Folders {
			if t.Path == key {
				found = true
				continue
			}
			kept = append(kept, t)
		}
		doc.Folders = kept
	})
	return found, err
}

// edit rewrites the file atomically, creating the user-only folder.
func (f TrustFile) edit(change func(*trustFileDoc)) error {
	if f.Path == "" {
		return errors.New("no user config folder to keep trusted folders in; set XDG_CONFIG_HOME or HOME")
	}
	trustFileMu.Lock()
	defer trustFileMu.Unlock()
	list, err := f.List()
	if err != nil {
		return err
	}
	doc := trustFileDoc{Folders: list}
	change(&doc)
	if doc.Folders == nil {
		doc.Folders = []TrustedFolder{}
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o700); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(f.Path), err)
	}
	return workspace.WriteFileAtomic(f.Path, append(out, '\n'))
}

// decideTrust decides each root's trust for a reload.
func decideTrust(roots []string, trustFile string, bypass bool) Trust {
	t := Trust{Roots: make([]RootTrust, 0, len(roots))}
	tf := TrustFile{Path: trustFile}
	for _, r := range roots {
		rt := RootTrust{Root: r, Reason: "untrusted"}
		switch {
		case bypass:
			rt.Trusted, rt.Reason = true, "bypassPermissions"
		default:
			if _, ok := tf.Covers(r); ok {
				rt.Trusted, rt.Reason = true, "trusted folder"
			}
		}
		t.Roots = append(t.Roots, rt)
	}
	return t
}

// SetSessionBypass records that the user switched the session to
// bypassPermissions (or away from it) from the editor: choosing it opts out
// of every prompt and so trusts every folder. It reloads.
func (s *Store) SetSessionBypass(on bool) {
	s.mu.Lock()
	changed := s.sessionBypass != on
	s.sessionBypass = on
	s.mu.Unlock()
	if changed {
		s.Reload()
	}
}

// Files lists every file this store reads: the trust file, the user's
// settings file and each root's project and local files, present or not.
func (s *Store) Files() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var files []string
	for _, f := range []string{s.trustFile, s.userPath} {
		if f != "" {
			files = append(files, f)
		}
	}
	for _, r := range s.roots {
		files = append(files, filepath.Join(r, ProjectDir, ProjectFile), filepath.Join(r, ProjectDir, LocalFile))
	}
	return files
}

// TrustFilePath is the trust file this store reads.
func (s *Store) TrustFilePath() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.trustFile
}
