package pathutil

import (
	"errors"
	"os"
	"path/filepath"
)

// StateDir is the folder toolhost keeps its own files in, outside every
// workspace: $TOOLHOST_STATE_DIR when set (tests), else toolhost in the
// user's cache folder.
func StateDir() (string, error) {
	if d := os.Getenv("TOOLHOST_STATE_DIR"); d != "" {
		return d, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "toolhost"), nil
}

// NeutralDir is the working folder of what toolhost starts on the user's
// behalf (the user's MCP servers, the user's hooks) while the workspace
// folder is not trusted. Started in the workspace, `npx -y pkg` runs the
// folder's node_modules/pkg and `python3 -m pkg` the folder's pkg/: the
// folder's own code, before anyone agreed to run it. The folder is empty,
// private (0700) and under the user's own state folder, so what a program
// finds by looking in its working folder or above it is the user's. When it
// cannot be made, the user's home serves: never a shared folder such as
// /tmp, where another user could plant the same modules.
func NeutralDir() string {
	if state, err := StateDir(); err == nil && filepath.IsAbs(state) {
		dir := filepath.Join(state, "neutral")
		if err := os.MkdirAll(dir, 0o700); err == nil || errors.Is(err, os.ErrExist) {
			if fi, err := os.Lstat(dir); err == nil && fi.IsDir() {
				return dir
			}
		}
	}
	if home, err := os.UserHomeDir(); err == nil && filepath.IsAbs(home) {
		return home
	}
	return string(filepath.Separator)
}
