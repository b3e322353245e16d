package search

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/workspace"
)

func TestAlternatives(t *testing.T) {
	cases := map[string][]string{
		`foo\|bar`:          {"foo", "bar"},
		`foo|bar`:           {"foo", "bar"},
		`(a|b)c`:            nil,
		`[|]x`:              nil,
		`foo\|(a|b)\|x\.go`: {"foo", "(a|b)", `x\.go`},
		`plain`:             nil,
		`a||b`:              nil,
		`a\\|b`:             {`a\\`, "b"},
	}
	for in, want := range cases {
		if got := alternatives(in); !slices.Equal(got, want) {
			t.Errorf("alternatives(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGrepPriorityAndSplitAlternatives(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"README.md": "server docs\n", "config.yaml": "server: 1\n", "main.go": "// server code\n",
		"notes.xyz": "server other\n", "schema.proto": "server proto\n",
	} {
		writeFile(t, dir, name, text)
	}
	ws := workspace.New(dir)
	st := settings.Defaults()
	cfg := func() *settings.Settings { return st }
	backends := map[string]string{"go": ""}
	if rg := FindRipgrep(); rg != "" {
		backends["ripgrep"] = rg
	}
	for name, path := range backends {
		t.Run(name, func(t *testing.T) {
			g := NewGrep(ws, path).WithSettings(cfg)
			order := func(input map[string]any) []string {
				t.Helper()
				res := run(t, g, input)
				var files []string
				for _, l := range strings.Split(res.Text(), "\n") {
					// path:count; the path may hold a colon itself (C:\...).
					if i := strings.LastIndex(l, ":"); i > 0 {
						files = append(files, filepath.Base(l[:i]))
					}
				}
				return files
			}
			count := map[string]any{"pattern": "server", "output_mode": "count"}
			*st = *settings.Defaults()
			if got := order(count); !slices.Equal(got, []string{"README.md", "config.yaml", "main.go", "notes.xyz", "schema.proto"}) {
				t.Errorf("default order: %v", got)
			}
			st.Grep.Priority = true
			if got := order(count); !slices.Equal(got, []string{"main.go", "schema.proto", "config.yaml", "README.md", "notes.xyz"}) {
				t.Errorf("priority order: %v", got)
			}
			st.Grep.PriorityTable = map[string]int{"proto": 2, ".xyz": 0}
			if got := order(count); !slices.Equal(got, []string{"main.go", "notes.xyz", "config.yaml", "README.md", "schema.proto"}) {
				t.Errorf("overridden order: %v", got)
			}

			split := map[string]any{"pattern": `nothing\|proto`, "output_mode": "content"}
			if res := run(t, g, split); strings.Contains(res.Text(), "schema.proto") {
				t.Errorf("split without the setting: %s", res.Text())
			}
			st.Grep.SplitAlternatives = true
			res := run(t, g, split)
			if !strings.Contains(res.Text(), "schema.proto:1:server proto") || !strings.Contains(res.Text(), `searched instead: nothing, proto (grep.splitAlternatives)`) {
				t.Errorf("split: %s", res.Text())
			}
			if res := run(t, g, map[string]any{"pattern": `absent\|missing`}); strings.Contains(res.Text(), "splitAlternatives") {
				t.Errorf("a split that finds nothing either adds a note: %s", res.Text())
			}
		})
	}
}
