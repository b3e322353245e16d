package search

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/execjail"
	"github.com/toolhost/toolhost/workspace"
)

// A small folder, or file, is searched in Go, without starting rg; past
// the bound on files or bytes, or with a pattern whose meaning differs in Go, rg
// searches it. The rg here does not exist, so a folder search that goes to
// it says so in the log (the jail cannot be set up, or cannot be had, and
// the Go backend answers instead), and a file search fails naming it; the
// search in Go does neither.
func TestSmallFoldersAreSearchedInGo(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "a.txt", "a needle here\n")
	writeFile(t, root, "b.txt", "nothing\n")
	writeFile(t, root, "c.txt", "nothing either\n")
	for _, tt := range []struct {
		name    string
		budget  searchBudget
		pattern string
		path    string
		wantRg  bool
	}{
		{"within both bounds", searchBudget{files: 10, bytes: 1 << 10}, "needle", "", false},
		{"more files than the bound", searchBudget{files: 2, bytes: 1 << 10}, "needle", "", true},
		{"more bytes than the bound", searchBudget{files: 10, bytes: 20}, "needle", "", true},
		{"a word boundary, ASCII-only in Go", searchBudget{files: 10, bytes: 1 << 10}, `\bneedle\b`, "", true},
		{"a class intersection, literal in Go", searchBudget{files: 10, bytes: 1 << 10}, `[a-z&&[^x]]eedle`, "", true},
		{"a pattern Go cannot compile", searchBudget{files: 10, bytes: 1 << 10}, `needle{0,1001}`, "", true},
		{"no bound: every folder to rg", searchBudget{}, "needle", "", true},
		{"a single file within the bytes", searchBudget{files: 1, bytes: 1 << 10}, "needle", "a.txt", false},
		{"a single file past the bytes", searchBudget{files: 1, bytes: 10}, "needle", "a.txt", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := NewGrep(workspace.New(root), filepath.Join(t.TempDir(), "no-rg-here"))
			var logged bytes.Buffer
			g.WithLog(slog.New(slog.NewTextHandler(&logged, nil)))
			g.backend.(*ripgrep).inGo = tt.budget
			input := map[string]any{"pattern": tt.pattern}
			if tt.path != "" {
				input["path"] = filepath.Join(root, tt.path)
			}
			text := run(t, g, input).Text()
			// A single file goes to rg unjailed, which fails to start.
			wentToRg := logged.Len() > 0 || strings.Contains(text, "no-rg-here")
			if tt.pattern == "needle" && !wentToRg && !strings.Contains(text, "a.txt") {
				t.Errorf("the search did not find a.txt: %s", text)
			}
			// Where rg cannot take an open file (Windows), Go searches files.
			want := tt.wantRg && (tt.path == "" || rgSearchesOpenFiles)
			if wentToRg != want {
				t.Errorf("the search went to rg: %v, want %v (log: %q)", wentToRg, want, logged.String())
			}
		})
	}
}

// A folder found past the bounds goes to rg at once on later searches,
// without the Go search up to the bounds, even once it has shrunk; other
// folders are still measured. Here rg cannot be jailed, so a search that
// goes past the Go search asks for the jail (counted) and Go answers.
func TestBigFoldersGoToRgAtOnce(t *testing.T) {
	big, small := t.TempDir(), t.TempDir()
	for _, name := range []string{"a.txt", "b.txt", "c.txt"} {
		writeFile(t, big, name, "a needle here\n")
	}
	writeFile(t, small, "a.txt", "a needle here\n")
	g := NewGrep(workspace.New(big), filepath.Join(t.TempDir(), "no-rg-here"))
	rg := g.backend.(*ripgrep)
	rg.inGo = searchBudget{files: 2, bytes: 1 << 10}
	pastGo := 0
	rg.jail = func(context.Context) execjail.Status {
		pastGo++
		return execjail.Status{Err: errors.New("no jail in this test")}
	}
	for i, step := range []struct {
		name, root string
		shrink     bool // remove all but a.txt before the search
		wantPastGo int
	}{
		{"a big folder, first search: past the bound", big, false, 1},
		{"the same folder shrunk: rg at once", big, true, 2},
		{"a small folder: Go", small, false, 2},
	} {
		if step.shrink {
			for _, name := range []string{"b.txt", "c.txt"} {
				if err := os.Remove(filepath.Join(step.root, name)); err != nil {
					t.Fatal(err)
				}
			}
		}
		text := run(t, g, map[string]any{"pattern": "needle", "path": step.root}).Text()
		if !strings.Contains(text, "a.txt") {
			t.Errorf("step %d (%s): the search did not find a.txt: %s", i, step.name, text)
		}
		if pastGo != step.wantPastGo {
			t.Errorf("step %d (%s): %d searches went past the Go search, want %d", i, step.name, pastGo, step.wantPastGo)
		}
	}
}
