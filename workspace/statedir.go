package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
)

// stateBase is the folder of toolhost's own state on this machine:
// $TOOLHOST_STATE_DIR when set (for tests), else toolhost in the user's
// cache folder.
func stateBase() (string, error) {
	if d := os.Getenv("TOOLHOST_STATE_DIR"); d != "" {
		return d, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "toolhost"), nil
}

// StateDir is where toolhost keeps its state about the workspace rooted at
// root — saved command output, finished tasks' output — outside the
// workspace, so that none of it shows up among the user's files (Glob
// lists ignored files) or in a commit: one folder per workspace, named by
// the root's base name and a hash of its path. It is not created here.
func StateDir(root string) (string, error) {
	base, err := stateBase()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(filepath.Clean(root)))
	name := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || ('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') {
			return r
		}
		return '_'
	}, filepath.Base(root))
	return filepath.Join(base, "workspaces", name+"-"+hex.EncodeToString(sum[:6])), nil
}
