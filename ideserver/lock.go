package ideserver

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/toolhost/toolhost/discovery"
	"github.com/toolhost/toolhost/internal/pathutil"
)

// Lock is the content of Claude Code's IDE lock file, <LockDir>/<port>.lock:
// the CLI lists these files to find the IDEs it can connect to.
type Lock struct {
	// PID is the editor's process. The CLI connects by itself only when
	// this process is one of its ancestors (claude runs in the editor's
	// terminal), so it is the editor's pid, not the server's.
	PID              int      `json:"pid"`
	WorkspaceFolders []string `json:"workspaceFolders"`
	IDEName          string   `json:"ideName"`
	Transport        string   `json:"transport"`
	AuthToken        string   `json:"authToken"`
}

// LockDir is the folder of the lock files: $CLAUDE_CONFIG_DIR/ide when that
// variable is set (Claude Code's own configuration folder then), else
// ~/.claude/ide.
func LockDir() (string, error) {
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, "ide"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no folder for Claude Code's IDE lock file (set HOME or CLAUDE_CONFIG_DIR): %w", err)
	}
	return filepath.Join(home, ".claude", "ide"), nil
}

// lockFolders are the workspace folders as the lock file names them, for a
// CLI started elsewhere (`claude --ide` in tmux) that finds its IDE by its
// own working folder: it connects when that folder is a lock's folder or
// lies below one, compared as text. Its working folder is the kernel's,
// with links resolved and no trailing slash, so each folder is given
// cleaned and, when a link leads elsewhere, also where it leads.
func lockFolders(folders []string) []string {
	out := []string{}
	for _, f := range folders {
		for _, p := range []string{filepath.Clean(f), pathutil.RealPath(f)} {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// writeLock writes lock as <dir>/<port>.lock with mode 0600: it holds the
// token.
func writeLock(dir string, port int, lock Lock) (string, error) {
	body, err := json.Marshal(lock)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, strconv.Itoa(port)+".lock")
	return path, discovery.WritePrivate(path, body)
}

// CleanStale removes the lock files in dir whose editor process no longer
// runs (an editor that was killed, or a server that could not remove its
// own): the CLI would offer an IDE that is gone. Lock files of running
// editors, and files it cannot read, are left alone. It returns the paths
// it removed.
func CleanStale(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".lock") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		body, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var l Lock
		if json.Unmarshal(body, &l) != nil || l.PID <= 0 {
			continue
		}
		if !discovery.Alive(l.PID) && os.Remove(path) == nil {
			removed = append(removed, path)
		}
	}
	return removed
}
