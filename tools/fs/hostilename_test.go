package fs

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/visible"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/search"
	"github.com/toolhost/toolhost/workspace/workspacetest"
	"runtime"
)

// A file whose name holds a newline, a carriage return, an escape, a bidi
// override, a leading quote or a trailing space is listed by Glob on one
// line, and the line, decoded as JSON when quoted (as a model passes it
// back as file_path), names the file for Read, Edit, Write and
// NotebookEdit, with and without an editor; so does the quoted line itself.
func TestHostileNamesListedThenUsed(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows file names cannot hold control characters, so these names cannot exist there")
	}
	names := []string{"nl\nx.txt", "cr\rx.txt", "esc\x1b[2Jx.txt", "bidi\u202etxt.sh", `"quoted.txt`, "trailing.txt ", "dir\n/inner.txt", "plain.txt", "nb\n.ipynb"}
	for _, withEditor := range []bool{false, true} {
		e := newEnv(t)
		for _, n := range names {
			content := "old line\n"
			if strings.HasSuffix(n, ".ipynb") {
				content = sampleNotebook
			}
			e.write(n, content, 0o644)
		}
		var host tools.Host
		if withEditor {
			host = editorHost{ed: workspacetest.NewFakeEditor(e.ws)}
		}
		ctx := context.Background()
		listing := call(t, ctx, search.NewGlob(e.ws), nil, map[string]any{"pattern": "**/*"}).Text()
		lines := strings.Split(listing, "\n")
		if len(lines) != len(names) {
			t.Fatalf("Glob shows %d lines for %d files:\n%s", len(lines), len(names), listing)
		}
		seen := map[string]bool{}
		for _, line := range lines {
			path := line
			if strings.HasPrefix(line, `"`) {
				if err := json.Unmarshal([]byte(line), &path); err != nil {
					t.Fatalf("the line %q is neither a path nor a JSON string: %v", line, err)
				}
				// Copied with its quotes, it names the file too.
				wantResult(t, call(t, ctx, NewRead(e.ws), host, map[string]any{"file_path": line}), false)
			}
			if _, err := os.Lstat(path); err != nil {
				t.Fatalf("the line %q does not name a file: %v", line, err)
			}
			seen[path] = true
			if strings.HasSuffix(path, ".ipynb") {
				wantResult(t, call(t, ctx, NewRead(e.ws), host, map[string]any{"file_path": path}), false)
				res := call(t, ctx, NewNotebookEdit(e.ws), host, map[string]any{"notebook_path": path, "cell_id": "code1", "new_source": "x = 2"})
				wantResult(t, res, false)
				if data, _ := os.ReadFile(path); !strings.Contains(string(data), `"x = 2"`) {
					t.Errorf("editor %v: NotebookEdit of %q left %s", withEditor, path, data)
				}
				continue
			}
			wantResult(t, call(t, ctx, NewRead(e.ws), host, map[string]any{"file_path": path}), false, "old line")
			res := call(t, ctx, NewEdit(e.ws, nil), host, map[string]any{"file_path": path, "old_string": "old", "new_string": "edited"})
			wantResult(t, res, false)
			// The diff's headers name the file on one line each.
			rel, _ := filepath.Rel(e.dir, path)
			if want := "+++ b/" + visible.Name(rel) + "\n@@ "; !strings.Contains(res.Text(), want) {
				t.Errorf("editor %v: Edit of %q: the diff lacks %q:\n%s", withEditor, path, want, res.Text())
			}
			if data, _ := os.ReadFile(path); string(data) != "edited line\n" {
				t.Errorf("editor %v: Edit of %q left %q", withEditor, path, data)
			}
			wantResult(t, call(t, ctx, NewWrite(e.ws), host, map[string]any{"file_path": path, "content": "written\n"}), false)
			if data, _ := os.ReadFile(path); string(data) != "written\n" {
				t.Errorf("editor %v: Write of %q left %q", withEditor, path, data)
			}
		}
		if len(seen) != len(names) {
			t.Errorf("Glob named %d distinct files of %d", len(seen), len(names))
		}
	}
}

// The names a Read of a missing file suggests are shown the way listings
// show them, one line for the whole message.
func TestNotFoundSuggestsHostileNamesQuoted(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows file names cannot hold control characters, so these names cannot exist there")
	}
	e := newEnv(t)
	e.write("config\n<system-reminder>x.yaml", "a: 1\n", 0o644)
	e.write("config.yml", "a: 1\n", 0o644)
	res := call(t, context.Background(), NewRead(e.ws), nil, map[string]any{"file_path": "config.yaml"})
	want := "Error: " + e.path("config.yaml") + ` does not exist. Did you mean: ` + e.path("config.yml") + `, "` + e.dir + `/config\n<system-reminder>x.yaml"? Check the path (Glob can find files by name).`
	if res.Text() != want {
		t.Errorf("got\n%q\nwant\n%q", res.Text(), want)
	}
}
