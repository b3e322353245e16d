package fs

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/wine"
	"github.com/toolhost/toolhost/workspace"
	"github.com/toolhost/toolhost/workspace/workspacetest"
)

// A folder swapped for a link to outside between the permission check and
// the read never shows what lies outside: reads of a path judged inside the
// workspace open through the workspace folder and refuse to leave it.
func TestReadSurvivesFolderSwap(t *testing.T) {
	wine.Skip(t, wine.Links)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	sub := filepath.Join(root, "sub")
	const secret = "SECRET-OUTSIDE-7f3a"
	notebook := func(text string) string {
		return `{"cells":[{"cell_type":"code","id":"a","metadata":{},"outputs":[],"source":["` + text + `"]}],"metadata":{},"nbformat":4,"nbformat_minor":5}`
	}
	for dir, text := range map[string]string{sub: "inside", outside: secret} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, content := range map[string]string{"file.txt": text + "\n", "nb.ipynb": notebook(text), "doc.pdf": string(minimalPDF(text))} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	ws := workspace.New(root)
	defer workspacetest.SwapFolder(sub, outside)()
	read := NewRead(ws)
	_, err = exec.LookPath("pdftotext")
	havePDF := err == nil
	leaks, reads := 0, 0
	for i := 0; i < 1500; i++ {
		for _, name := range []string{"file.txt", "nb.ipynb", "doc.pdf"} {
			if name == "doc.pdf" && (i%15 != 0 || !havePDF) {
				continue // a conversion takes a process or three
			}
			p := filepath.Join(sub, name)
			// The permission check passes the path first, as the pipeline
			// does; a path judged outside would have been asked about.
			if !ws.Inside(p) {
				continue
			}
			reads++
			if res := call(t, context.Background(), read, nil, map[string]any{"file_path": p}); strings.Contains(res.Text(), secret) {
				leaks++
			}
		}
	}
	if leaks > 0 {
		t.Errorf("%d of %d reads judged inside the workspace showed the content outside it", leaks, reads)
	}
}
