package search

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/wine"
	"github.com/toolhost/toolhost/workspace"
	"runtime"
)

// deepTree makes root/top.txt and a file below a path longer than
// PATH_MAX (4096), both holding "needle"; it returns the deep file's name.
func deepTree(t *testing.T, root string) {
	t.Helper()
	writeFile(t, root, "top.txt", "needle\n")
	long := strings.Repeat("d", 200)
	dir, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	rel := "."
	for range 25 {
		rel = filepath.Join(rel, long)
		if err := dir.Mkdir(rel, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := dir.WriteFile(filepath.Join(rel, "deep.txt"), []byte("needle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGrepSaysWhatItCouldNotSearch: a part of the tree the backend could
// not search (a path longer than the system takes, an unreadable folder)
// is named in the result, with the results found elsewhere; never a
// silent "No files found" or a list that looks complete.
func TestGrepSaysWhatItCouldNotSearch(t *testing.T) {
	wine.Skip(t, wine.LongPaths)
	for backend, rgPath := range folderBackends(t) {
		t.Run(backend, func(t *testing.T) {
			root := t.TempDir()
			deepTree(t, root)
			g := NewGrep(workspace.New(root), rgPath)
			for _, mode := range []string{ModeFilesWithMatches, ModeContent, ModeCount} {
				text := run(t, g, map[string]any{"pattern": "needle", "output_mode": mode}).Text()
				if !strings.Contains(text, "top.txt") {
					t.Errorf("%s: the readable file is missing: %s", mode, text)
				}
				if !strings.Contains(text, "deep.txt") && !strings.Contains(text, "Not searched") {
					t.Errorf("%s: the file below the long path is neither found nor said to be unsearched:\n%.600s", mode, text)
				}
			}
		})
	}
}

// TestGrepNamesUnreadableFolders: with nothing found, the answer says the
// unreadable folder was not searched instead of "No files found." alone.
func TestGrepNamesUnreadableFolders(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every folder")
	}
	if runtime.GOOS == "windows" {
		t.Skip("chmod on Windows sets only the read-only attribute, which does not stop a folder being read")
	}
	for backend, rgPath := range folderBackends(t) {
		t.Run(backend, func(t *testing.T) {
			root := t.TempDir()
			if err := os.Mkdir(filepath.Join(root, "locked"), 0o755); err != nil {
				t.Fatal(err)
			}
			writeFile(t, root, "locked/a.txt", "needle\n")
			if err := os.Chmod(filepath.Join(root, "locked"), 0); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.Chmod(filepath.Join(root, "locked"), 0o755) })
			text := run(t, NewGrep(workspace.New(root), rgPath), map[string]any{"pattern": "needle"}).Text()
			if !strings.Contains(text, "Not searched") || !strings.Contains(text, "locked") {
				t.Errorf("the unreadable folder is not named:\n%s", text)
			}
		})
	}
}
