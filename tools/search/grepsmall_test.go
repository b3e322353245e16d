package search

import (
	"bytes"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/workspace"
)

// A small folder is searched in Go, without starting rg; past the bound on
// files or bytes, or with a pattern whose meaning differs in Go, rg
// searches it. The rg here does not exist, so a search that goes to it
// says so in the log (the jail cannot be set up, or cannot be had, and
// the Go backend answers instead); the search in Go logs nothing.
func TestSmallFoldersAreSearchedInGo(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "a.txt", "a needle here\n")
	writeFile(t, root, "b.txt", "nothing\n")
	writeFile(t, root, "c.txt", "nothing either\n")
	for _, tt := range []struct {
		name    string
		budget  searchBudget
		pattern string
		wantRg  bool
	}{
		{"within both bounds", searchBudget{files: 10, bytes: 1 << 10}, "needle", false},
		{"more files than the bound", searchBudget{files: 2, bytes: 1 << 10}, "needle", true},
		{"more bytes than the bound", searchBudget{files: 10, bytes: 20}, "needle", true},
		{"a word boundary, ASCII-only in Go", searchBudget{files: 10, bytes: 1 << 10}, `\bneedle\b`, true},
		{"a class intersection, literal in Go", searchBudget{files: 10, bytes: 1 << 10}, `[a-z&&[^x]]eedle`, true},
		{"a pattern Go cannot compile", searchBudget{files: 10, bytes: 1 << 10}, `needle{0,1001}`, true},
		{"no bound: every folder to rg", searchBudget{}, "needle", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := NewGrep(workspace.New(root), filepath.Join(t.TempDir(), "no-rg-here"))
			var logged bytes.Buffer
			g.WithLog(slog.New(slog.NewTextHandler(&logged, nil)))
			g.backend.(*ripgrep).inGo = tt.budget
			text := run(t, g, map[string]any{"pattern": tt.pattern}).Text()
			if tt.pattern == "needle" && !strings.Contains(text, "a.txt") {
				t.Errorf("the search did not find a.txt: %s", text)
			}
			if wentToRg := logged.Len() > 0; wentToRg != tt.wantRg {
				t.Errorf("the search went to rg: %v, want %v (log: %q)", wentToRg, tt.wantRg, logged.String())
			}
		})
	}
}
