// Package discovery announces a running editor session's MCP endpoint to
// other processes of the same user, and finds it again: `toolhost serve`
// writes one file per session (workspace roots, URL, bearer token, pid)
// that only the user can read, and removes it at exit; `toolhost mcp
// --attach` reads them to find the session whose workspace holds the
// current folder, or the one named by EnvVar.
package discovery

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/toolhost/toolhost/internal/lifetime"
)

// EnvVar names the discovery file of the session a process should attach
// to; the editor clients set it for the processes and terminals they
// start.
const EnvVar = "TOOLHOST_SESSION"

// Info is the content of a discovery file.
type Info struct {
	// PID is the process of `toolhost serve`.
	PID int `json:"pid"`
	// Roots are the session's workspace folders.
	Roots []string `json:"roots"`
	// URL is the streamable-HTTP MCP endpoint, on a loopback address.
	URL string `json:"url"`
	// Token is the bearer token the endpoint requires.
	Token string `json:"token"`
	// Client names the editor ("Visual Studio Code", "Neovim").
	Client string `json:"client,omitempty"`
	// Version is toolhost's version.
	Version   string    `json:"version,omitempty"`
	StartedAt time.Time `json:"startedAt"`
}

// Dir is the folder of the discovery files: $XDG_RUNTIME_DIR/toolhost (a
// per-user folder that the system empties at logout), else toolhost/sessions
// in the user's cache folder.
func Dir() (string, error) {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "toolhost"), nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no folder for the session files (set XDG_RUNTIME_DIR or HOME): %w", err)
	}
	return filepath.Join(cache, "toolhost", "sessions"), nil
}

// NewToken returns a random bearer token.
func NewToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Write creates the discovery file of info in Dir, readable and writable
// by the user only (the folder too), and returns its path. The file
// appears whole: it is written aside and renamed.
func Write(info Info) (string, error) {
	dir, err := Dir()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("creating %s: %w", dir, err)
	}
	// A folder made earlier with a wider mode is narrowed: the files hold
	// tokens.
	if err := makePrivate(dir, true); err != nil {
		return "", fmt.Errorf("making %s private: %w", dir, err)
	}
	body, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return "", err
	}
	var suffix [4]byte
	_, _ = rand.Read(suffix[:])
	path := filepath.Join(dir, fmt.Sprintf("session-%d-%s.json", info.PID, hex.EncodeToString(suffix[:])))
	tmp, err := os.CreateTemp(dir, ".session-*.tmp")
	if err != nil {
		return "", fmt.Errorf("writing the session file: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := makePrivate(tmp.Name(), false); err != nil {
		tmp.Close()
		return "", err
	}
	if _, err := tmp.Write(append(body, '\n')); err != nil {
		tmp.Close()
		return "", fmt.Errorf("writing the session file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("writing the session file: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("writing the session file: %w", err)
	}
	return path, nil
}

// Update rewrites the discovery file at path with info (roots changed).
func Update(path string, info Info) error {
	body, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".session-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(body, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Read reads one discovery file. A file others can read or write is
// refused: its token may be known, or its URL planted, by another user.
func Read(path string) (Info, error) {
	var info Info
	st, err := os.Stat(path)
	if err != nil {
		return info, err
	}
	if err := userOnly(path, st); err != nil {
		return info, err
	}
	body, err := os.ReadFile(path)
	if err != nil {
		return info, err
	}
	if err := json.Unmarshal(body, &info); err != nil {
		return info, fmt.Errorf("%s is not a toolhost session file: %w", path, err)
	}
	if info.URL == "" || info.Token == "" {
		return info, fmt.Errorf("%s names no endpoint (url and token); the session that wrote it may be from another version", path)
	}
	return info, nil
}

// Alive reports whether the process pid exists.
func Alive(pid int) bool {
	return lifetime.Alive(pid)
}

// Session is a discovery file found by Find.
type Session struct {
	Path string
	Info
}

// ErrNone means no running session's workspace holds the folder.
var ErrNone = errors.New("no running toolhost editor session")

// List returns the sessions whose process runs. Files of sessions that
// ended without removing them (killed) are removed.
func List() ([]Session, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	paths, err := filepath.Glob(filepath.Join(dir, "session-*.json"))
	if err != nil {
		return nil, err
	}
	var out []Session
	for _, p := range paths {
		info, err := Read(p)
		if err != nil {
			continue
		}
		if !Alive(info.PID) {
			_ = os.Remove(p)
			continue
		}
		out = append(out, Session{Path: p, Info: info})
	}
	return out, nil
}

// Find returns the session whose workspace holds folder: the one with the
// deepest root containing it, the latest started among equals.
func Find(folder string) (Session, error) {
	folder = cleanPath(folder)
	all, err := List()
	if err != nil {
		return Session{}, err
	}
	best, bestDepth := -1, -1
	for i, s := range all {
		for _, r := range s.Roots {
			r = cleanPath(r)
			if !within(r, folder) {
				continue
			}
			depth := len(r)
			if depth > bestDepth || (depth == bestDepth && s.StartedAt.After(all[best].StartedAt)) {
				best, bestDepth = i, depth
			}
		}
	}
	if best < 0 {
		var roots []string
		for _, s := range all {
			roots = append(roots, s.Roots...)
		}
		sort.Strings(roots)
		if len(roots) == 0 {
			return Session{}, ErrNone
		}
		return Session{}, fmt.Errorf("%w whose workspace holds %s (running sessions: %s)", ErrNone, folder, strings.Join(roots, ", "))
	}
	return all[best], nil
}

// cleanPath is an absolute path with symbolic links resolved where they
// exist.
func cleanPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	return filepath.Clean(p)
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// WritePrivate writes body to path, readable and writable by the user only,
// creating its folder (mode 0700) when missing. The file appears whole: it
// is written aside and renamed. Other programs' discovery files (Claude
// Code's IDE lock files) are written with it too.
func WritePrivate(path string, body []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, ".toolhost-*.tmp")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := makePrivate(tmp.Name(), false); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(body); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
