package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"

	"github.com/toolhost/toolhost/internal/pathutil"
)

// StateDir is where toolhost keeps its state about the workspace rooted at
// root — saved command output, finished tasks' output — outside the
// workspace, so that none of it shows up among the user's files (Glob
// lists ignored files) or in a commit: one folder per workspace, named by
// the root's base name and a hash of its path. It is not created here.
func StateDir(root string) (string, error) {
	base, err := pathutil.StateDir()
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
