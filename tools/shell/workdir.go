package shell

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/internal/visible"
	"github.com/toolhost/toolhost/workspace"
)

// workDirs is the folder a shell tool's next command starts in: as in
// Claude Code, where the last successful foreground command ended (a `cd`
// carries over), while that is inside the workspace. Bash and PowerShell
// each keep one; the zero value starts in the workspace root.
type workDirs struct {
	mu sync.Mutex
	// cwd is the folder the last foreground command ended in while that is
	// inside the workspace; "" means the workspace root. root is the root
	// it was kept under: when the root changes (EnterWorktree), the next
	// command starts in the new root.
	cwd, root string
}

// dir is where the next command starts: the folder the last one ended
// in, while it still exists inside the workspace, else the workspace root.
func (w *workDirs) dir(ws *workspace.Workspace) string {
	w.mu.Lock()
	cwd, under := w.cwd, w.root
	w.mu.Unlock()
	if cwd != "" && under == ws.Root() {
		if fi, err := os.Stat(cwd); err == nil && fi.IsDir() && ws.Inside(cwd) {
			return cwd
		}
	}
	return ws.Root()
}

// keep remembers the folder a command ended in, read from file. A folder
// outside the workspace is not kept: the next command starts in the root
// again, and the returned note tells the model so. A command that wrote
// nothing (killed, or it replaced the report) leaves the folder as it was.
func (w *workDirs) keep(ws *workspace.Workspace, file string) (note string) {
	data, err := os.ReadFile(file)
	dir := strings.TrimRight(string(data), "\r\n")
	if err != nil || dir == "" || !filepath.IsAbs(dir) {
		return ""
	}
	root := ws.Root()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.root = root
	switch {
	case dir == root:
		w.cwd = ""
	case ws.Inside(dir):
		w.cwd = dir
	default:
		w.cwd = ""
		return fmt.Sprintf("[The command ended in %s, outside the workspace, so the next command starts in %s again.]", visible.Name(dir), visible.Name(root))
	}
	return ""
}
