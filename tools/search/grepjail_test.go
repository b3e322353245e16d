package search

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/tools"

	"github.com/toolhost/toolhost/internal/wine"
	"github.com/toolhost/toolhost/workspace"
	"github.com/toolhost/toolhost/workspace/workspacetest"
)

// Grep of a single file judged inside the workspace searches that file
// through the workspace's jail: a folder on its way swapped for a link to
// outside never shows what lies outside, with either backend.
func TestGrepFileSurvivesFolderSwap(t *testing.T) {
	wine.Skip(t, wine.Links)
	const secret = "SECRET-OUTSIDE-7f3a"
	for backend, rgPath := range map[string]string{"ripgrep": FindRipgrep(), "go": ""} {
		if backend == "ripgrep" && rgPath == "" {
			t.Log("ripgrep is not installed; only the Go backend is tried")
			continue
		}
		base, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		root, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
		sub := filepath.Join(root, "sub")
		for dir, text := range map[string]string{sub: "inside", outside: secret} {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "file.txt"), []byte("LINE "+text+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		ws := workspace.New(root)
		g := NewGrep(ws, rgPath)
		p := filepath.Join(sub, "file.txt")
		stop := workspacetest.SwapFolder(sub, outside)
		t.Cleanup(stop)
		leaks, found, searches, failures := 0, 0, 0, 0
		for i := 0; searches < 300 && i < 1_000_000; i++ {
			// The permission check passes the path first, as the pipeline does.
			if !ws.Inside(p) {
				continue
			}
			searches++
			// A failure is no leak; it is counted apart from results.
			res, err := g.Execute(context.Background(), &tools.Call{Input: []byte(`{"pattern":"LINE","output_mode":"content","path":"` + p + `"}`), Host: tools.NoHost{}, Progress: tools.NoProgress{}})
			if err != nil {
				failures++
				continue
			}
			text := res.Text()
			if strings.Contains(text, secret) {
				leaks++
			}
			if strings.Contains(text, "LINE inside") {
				found++
			}
		}
		stop()
		t.Logf("%s: %d searches, %d found the line inside, %d failed", backend, searches, found, failures)
		if leaks > 0 {
			t.Errorf("%s: %d of %d searches judged inside the workspace showed the content outside it", backend, leaks, searches)
		}
		// With nothing swapping, the file is found and named as given.
		if text := run(t, g, map[string]any{"pattern": "LINE", "path": p, "output_mode": "content"}).Text(); !strings.Contains(text, p) || !strings.Contains(text, "LINE inside") {
			t.Errorf("%s: searching %s: %s", backend, p, text)
		}
	}
}
