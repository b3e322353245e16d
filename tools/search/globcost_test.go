package search

import (
	"strings"
	"testing"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

func TestGlobAlternatives(t *testing.T) {
	tests := []struct {
		pattern string
		want    int
	}{
		{"**/*.go", 1},
		{"*.{ts,tsx}", 2},
		{"{src,lib}/**/*.{ts,js,jsx}", 6},
		{"{a,{b,c}}", 3},
		{"{a,b{c,d}}", 3},
		{`\{a,b\}`, 1},
		{"[{]a,b}", 1},
		{"[]{]x", 1},
		{"{a,b", 2},
		{strings.Repeat("{a,aa}", 40) + "b", maxGlobAlternatives + 1},
		{strings.Repeat("{a,", 300) + "b" + strings.Repeat("}", 300), maxGlobAlternatives + 1},
	}
	for _, tc := range tests {
		if got := globAlternatives(tc.pattern); got != tc.want {
			t.Errorf("globAlternatives(%.40q) = %d, want %d", tc.pattern, got, tc.want)
		}
	}
}

// TestSearchToolsRefuseExplosiveGlobs: a glob whose braces spell more
// combinations than the cap is refused by each tool that matches globs,
// before any name is tried against it (doublestar backtracks through every
// combination per name, beyond the reach of a cancel).
func TestSearchToolsRefuseExplosiveGlobs(t *testing.T) {
	dir := t.TempDir()
	makeFiles(t, dir, map[string]int{strings.Repeat("a", 100): 1})
	ws := workspace.New(dir)
	explosive := strings.Repeat("{a,b}", 8) // 256 combinations
	for _, tc := range []struct {
		name  string
		tool  tools.Tool
		input map[string]any
	}{
		{"Glob", NewGlob(ws), map[string]any{"pattern": explosive}},
		{"Grep", NewGrep(ws, ""), map[string]any{"pattern": "x", "glob": explosive}},
		{"LS", NewLS(ws), map[string]any{"path": dir, "ignore": []string{explosive}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, tc.tool, tc.input)
			if !res.IsError || !strings.Contains(res.Text(), "too many brace alternatives") {
				t.Errorf("got %q, want the pattern refused for its brace alternatives", res.Text())
			}
		})
	}
}
