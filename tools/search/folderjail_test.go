package search

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/execjail"
	"github.com/toolhost/toolhost/internal/wine"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
	"github.com/toolhost/toolhost/workspace/workspacetest"
)

const (
	outsideSecret = "SECRET-OUTSIDE-91c4"
	outsideName   = "outside-only-name.txt"
)

// swapWorkspace makes base/ws holding sub/ and base/outside with the same
// tree (folders d0..d9 of files f0..f9.txt; the ones outside hold a
// secret, and each of its folders a file whose name only exists outside),
// and starts swapping sub for a link to outside. A search that resolves a
// path through sub at any moment after its check can land outside.
func swapWorkspace(t *testing.T) (ws *workspace.Workspace, root string, stop func()) {
	t.Helper()
	wine.Skip(t, wine.Links)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	sub := filepath.Join(root, "sub")
	for top, text := range map[string]string{sub: "inside", outside: outsideSecret} {
		for d := range 10 {
			dir := filepath.Join(top, fmt.Sprintf("d%d", d))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for f := range 10 {
				writeFile(t, dir, fmt.Sprintf("f%d.txt", f), "LINE "+text+"\n")
			}
			if top == outside {
				writeFile(t, dir, outsideName, "LINE "+text+"\n")
			}
		}
	}
	stop = workspacetest.SwapFolder(sub, outside)
	t.Cleanup(stop)
	return workspace.New(root), root, stop
}

// folderBackends are the Grep backends to try: rg jailed by Landlock
// (where this machine has it) and Go.
func folderBackends(t *testing.T) map[string]string {
	backends := map[string]string{"go": ""}
	switch rg := FindRipgrep(); {
	case rg == "":
		t.Log("ripgrep is not installed; only the Go backend is tried")
	case execjail.Check(context.Background()).Err != nil:
		t.Logf("ripgrep cannot be jailed here (%v); only the Go backend is tried", execjail.Check(context.Background()).Err)
	default:
		backends["ripgrep"] = rg
	}
	return backends
}

// Grep of a folder of the workspace, while another process keeps swapping
// a folder in it for a link to outside, never shows the content or the
// name of a file outside, with either backend.
func TestGrepFolderSurvivesFolderSwap(t *testing.T) {
	for backend, rgPath := range folderBackends(t) {
		ws, root, stop := swapWorkspace(t)
		g := NewGrep(ws, rgPath)
		leaks, found, failures := 0, 0, 0
		const searches = 300
		for i := range searches {
			mode := []string{ModeContent, ModeFilesWithMatches, ModeCount}[i%3]
			res, err := g.Execute(context.Background(), &tools.Call{Input: []byte(`{"pattern":"LINE","output_mode":"` + mode + `"}`), Host: tools.NoHost{}, Progress: tools.NoProgress{}})
			if err != nil {
				failures++
				continue
			}
			text := res.Text()
			if strings.Contains(text, outsideSecret) || strings.Contains(text, outsideName) {
				leaks++
			}
			if strings.Contains(text, "f0.txt") {
				found++
			}
		}
		stop()
		t.Logf("%s: %d searches, %d found the file inside, %d failed", backend, searches, found, failures)
		if leaks > 0 {
			t.Errorf("%s: %d of %d searches of the workspace showed a file outside it", backend, leaks, searches)
		}
		// With nothing swapping, the file inside is found.
		if text := run(t, g, map[string]any{"pattern": "LINE", "output_mode": "content"}).Text(); !strings.Contains(text, filepath.Join(root, "sub", "d3", "f7.txt")+":1:LINE inside") {
			t.Errorf("%s: searching the workspace: %s", backend, text)
		}
	}
}

// Glob of the workspace, and of the swapped folder itself, while it keeps
// being swapped for a link to outside, never shows the name of a file
// outside.
func TestGlobSurvivesFolderSwap(t *testing.T) {
	ws, root, stop := swapWorkspace(t)
	g := NewGlob(ws)
	leaks, found, failures := 0, 0, 0
	const globs = 300
	for i := range globs {
		input := `{"pattern":"**/*.txt"}`
		if i%2 == 1 {
			input = `{"pattern":"sub/**/*.txt"}`
		}
		res, err := g.Execute(context.Background(), &tools.Call{Input: []byte(input), Host: tools.NoHost{}, Progress: tools.NoProgress{}})
		if err != nil {
			t.Log(err)
			failures++
			continue
		}
		text := res.Text()
		if strings.Contains(text, outsideName) {
			leaks++
		}
		if strings.Contains(text, "f0.txt") {
			found++
		}
	}
	stop()
	t.Logf("%d globs, %d found the file inside, %d failed", globs, found, failures)
	if leaks > 0 {
		t.Errorf("%d of %d globs of the workspace showed a name outside it", leaks, globs)
	}
	if text := run(t, g, map[string]any{"pattern": "sub/d3/*.txt"}).Text(); strings.Count(text, "\n") != 9 || !strings.Contains(text, filepath.Join(root, "sub", "d3", "f7.txt")) {
		t.Errorf("globbing sub/d3/*.txt: %s", text)
	}
}

// fakeRgMarkVar names the file this test program, run as a fake rg,
// creates to say that it ran.
const fakeRgMarkVar = "TOOLHOST_TEST_FAKE_RG_MARK"

// Where rg cannot be jailed (here: TOOLHOST_LANDLOCK=off, which the helper
// obeys as it would a kernel without Landlock), folders are searched by
// the Go backend, never by an unjailed rg, and the log says so once.
func TestGrepFallsBackToGoWithoutLandlock(t *testing.T) {
	t.Setenv(execjail.OffVar, "off")
	// An "rg" that leaves a mark when it runs, and prints nothing: this
	// test program, run with fakeRgMarkVar set (TestMain).
	mark := filepath.Join(t.TempDir(), "ran")
	t.Setenv(fakeRgMarkVar, mark)
	fakeRg, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	writeFile(t, root, "a.txt", "needle\n")
	g := NewGrep(workspace.New(root), fakeRg)
	var logged bytes.Buffer
	g.WithLog(slog.New(slog.NewTextHandler(&logged, nil)))
	// A probe of its own, not the one this test binary made already.
	g.backend.(*ripgrep).jail = execjail.Probe
	for range 2 {
		if text := run(t, g, map[string]any{"pattern": "needle"}).Text(); !strings.Contains(text, "a.txt") {
			t.Errorf("the fallback did not find the file: %s", text)
		}
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("rg ran unjailed")
	}
	if n := strings.Count(logged.String(), "Grep searches folders in Go"); n != 1 || !strings.Contains(logged.String(), "turned off") {
		t.Errorf("the log said %d times that Go searches folders:\n%s", n, logged.String())
	}
	// A single file is opened through the workspace's jail and handed to
	// rg, which needs no Landlock for it; Windows cannot hand it over, and
	// Go searches it there.
	if text := run(t, g, map[string]any{"pattern": "needle", "path": filepath.Join(root, "a.txt")}).Text(); !rgSearchesOpenFiles && !strings.Contains(text, "a.txt") {
		t.Errorf("a single file was not searched in Go: %s", text)
	}
	if _, err := os.Stat(mark); (err == nil) != rgSearchesOpenFiles {
		t.Errorf("rg searched a single file: %v, want %v", err == nil, rgSearchesOpenFiles)
	}
}

// LS and Tree, of a folder below the swapped one and of the workspace,
// never list a name outside it either.
func TestLSAndTreeSurviveFolderSwap(t *testing.T) {
	ws, root, stop := swapWorkspace(t)
	for _, c := range []struct {
		tool  tools.Tool
		input string
	}{
		{NewLS(ws), `{"path":"` + filepath.Join(root, "sub", "d3") + `"}`},
		{NewTree(ws), `{"max_depth":3}`},
	} {
		leaks, failures := 0, 0
		const calls = 300
		for range calls {
			res, err := c.tool.Execute(context.Background(), &tools.Call{Input: []byte(c.input), Host: tools.NoHost{}, Progress: tools.NoProgress{}})
			if err != nil {
				failures++
				continue
			}
			if strings.Contains(res.Text(), outsideName) {
				leaks++
			}
		}
		t.Logf("%s: %d calls, %d failed", c.tool.Name(), calls, failures)
		if leaks > 0 {
			t.Errorf("%s: %d of %d calls listed a name outside the workspace", c.tool.Name(), leaks, calls)
		}
	}
	stop()
	if text := run(t, NewTree(ws), map[string]any{"max_depth": 3}).Text(); !strings.Contains(text, "f7.txt") {
		t.Errorf("Tree of the workspace: %s", text)
	}
}

// A folder outside the workspace that the user approved is searched, by
// either backend and by Glob, jailed to that folder.
func TestSearchOfAnApprovedFolderOutside(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "ws"), filepath.Join(base, "elsewhere")
	for _, dir := range []string{root, filepath.Join(outside, "deep")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, outside, "deep/found.txt", "LINE elsewhere\n")
	ws := workspace.New(root)
	for backend, rgPath := range folderBackends(t) {
		text := run(t, NewGrep(ws, rgPath), map[string]any{"pattern": "LINE", "path": outside, "output_mode": "content"}).Text()
		if !strings.Contains(text, filepath.Join(outside, "deep", "found.txt")+":1:LINE elsewhere") {
			t.Errorf("%s: Grep of %s: %s", backend, outside, text)
		}
	}
	if text := run(t, NewGlob(ws), map[string]any{"pattern": "**/*.txt", "path": outside}).Text(); text != filepath.Join(outside, "deep", "found.txt") {
		t.Errorf("Glob of %s: %s", outside, text)
	}
}

// A folder reached through a link leading outside (docs -> elsewhere) is
// searched as the user approved it, with either backend and by Glob: the
// approved folder while the link leads there, and nothing once it leads
// elsewhere.
func TestSearchThroughAnApprovedLink(t *testing.T) {
	wine.Skip(t, wine.Links)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, approved, other := filepath.Join(base, "ws"), filepath.Join(base, "approved"), filepath.Join(base, "other")
	for dir, text := range map[string]string{approved: "approved", other: "other"} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, text+".txt", "LINE "+text+"\n")
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "docs")
	if err := os.Symlink(approved, link); err != nil {
		t.Fatal(err)
	}
	ws := workspace.New(root)
	a, ok := workspace.ApproveRead(link, workspace.RealPath(link))
	if !ok {
		t.Fatal("no approval")
	}
	call := func(tool tools.Tool, input string) string {
		t.Helper()
		res, err := tool.Execute(context.Background(), &tools.Call{Input: []byte(input), Host: tools.NoHost{}, Progress: tools.NoProgress{}, ApprovedReads: []workspace.ApprovedRead{a}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Text()
	}
	grepInput := `{"pattern":"LINE","output_mode":"content","path":"` + link + `"}`
	globInput := `{"pattern":"*.txt","path":"` + link + `"}`
	for backend, rgPath := range folderBackends(t) {
		if text := call(NewGrep(ws, rgPath), grepInput); !strings.Contains(text, "LINE approved") {
			t.Errorf("%s: Grep of the approved link: %s", backend, text)
		}
	}
	if text := call(NewGlob(ws), globInput); !strings.Contains(text, "approved.txt") {
		t.Errorf("Glob of the approved link: %s", text)
	}
	// The link now leads elsewhere: nothing there was approved.
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, link); err != nil {
		t.Fatal(err)
	}
	for backend, rgPath := range folderBackends(t) {
		if text := call(NewGrep(ws, rgPath), grepInput); strings.Contains(text, "LINE other") || !strings.Contains(text, "leads to") {
			t.Errorf("%s: Grep of the relinked link: %s", backend, text)
		}
	}
	if text := call(NewGlob(ws), globInput); strings.Contains(text, "other.txt") || !strings.Contains(text, "leads to") {
		t.Errorf("Glob of the relinked link: %s", text)
	}
}

// Grep of a folder below the workspace root honours the ignore files above
// it, with either backend: the jailed rg may read them, though not list
// or search their folders.
func TestGrepOfASubfolderHonoursTheIgnoreFilesAbove(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, ".gitignore", "*.log\n")
	writeFile(t, root, "sub/.ignore", "skipped.txt\n")
	writeFile(t, root, "sub/a.log", "needle\n")
	writeFile(t, root, "sub/skipped.txt", "needle\n")
	writeFile(t, root, "sub/b.txt", "needle\n")
	writeFile(t, root, "beside.txt", "needle\n")
	ws := workspace.New(root)
	for backend, rgPath := range folderBackends(t) {
		text := run(t, NewGrep(ws, rgPath), map[string]any{"pattern": "needle", "path": filepath.Join(root, "sub")}).Text()
		if text != "Found 1 file\n"+filepath.Join(root, "sub", "b.txt") {
			t.Errorf("%s: %s", backend, text)
		}
	}
}
