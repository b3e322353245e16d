package pathutil

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// LookPathAbs finds an executable named name in the absolute folders of
// PATH, as exec.LookPath would, but passes over relative entries (".",
// "bin") instead of stopping at them: such an entry names a folder of
// whatever the working folder is (a cloned repository's bin/), where
// exec.LookPath finds a program and refuses it with exec.ErrDot, so a
// program installed further down PATH was reported as missing.
func LookPathAbs(name string) (string, error) {
	if strings.ContainsRune(name, filepath.Separator) {
		return exec.LookPath(name)
	}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if !filepath.IsAbs(dir) {
			continue
		}
		if p, err := exec.LookPath(filepath.Join(dir, name)); err == nil {
			return p, nil
		}
	}
	return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
}
