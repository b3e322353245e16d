package search

import (
	"path/filepath"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/settings"
)

// File kinds of grep.priority, best first.
const (
	kindSource = iota
	kindConfig
	kindDocs
	kindOther
)

// priorityTable is the built-in kind of common extensions (and of a few
// names without one), made on first use: every start of the binary pays
// for what package initialisation builds.
var priorityTable = sync.OnceValue(func() map[string]int {
	m := map[string]int{}
	add := func(kind int, exts string) {
		for _, e := range strings.Fields(exts) {
			m[e] = kind
		}
	}
	add(kindSource, ".go .py .js .mjs .cjs .ts .tsx .jsx .rs .java .kt .kts .scala .c .h .cc .cpp .cxx .hpp .hh .cs .rb .php .swift .m .mm .lua .sh .bash .zsh .ps1 .pl .r .jl .ex .exs .erl .hs .ml .fs .dart .vue .svelte .sql .proto .zig .nim .clj .el .vim")
	add(kindConfig, ".json .jsonc .yaml .yml .toml .ini .cfg .conf .xml .properties .env .mod .sum .lock .gradle .tf .hcl .nix makefile dockerfile .editorconfig .gitignore")
	add(kindDocs, ".md .markdown .rst .txt .adoc .org .tex .csv .tsv .log .html .htm .css .scss .svg .ipynb")
	return m
})

// rankFor returns the grep.priority rank function of st, or nil when the
// setting is off.
func rankFor(st *settings.Settings) func(path string) int {
	if st == nil || !st.Grep.Priority {
		return nil
	}
	overrides := map[string]int{}
	for ext, kind := range st.Grep.PriorityTable {
		e := strings.ToLower(strings.TrimSpace(ext))
		if e != "" && !strings.HasPrefix(e, ".") && !strings.Contains(e, "file") {
			e = "." + e
		}
		overrides[e] = min(max(kind, kindSource), kindOther)
	}
	builtIn := priorityTable()
	return func(path string) int {
		base := strings.ToLower(filepath.Base(path))
		ext := filepath.Ext(base)
		for _, key := range []string{base, ext} {
			if key == "" {
				continue
			}
			if k, ok := overrides[key]; ok {
				return k
			}
			if k, ok := builtIn[key]; ok {
				return k
			}
		}
		return kindOther
	}
}

// alternatives splits a pattern at its top-level alternations: "|" outside
// brackets and groups, and "\|" (grep's basic-regex alternation, a literal
// "|" to ripgrep) anywhere outside brackets. It returns nil when there is
// nothing to split or a part is empty.
func alternatives(pattern string) []string {
	var parts []string
	var cur strings.Builder
	depth, inClass, escaped := 0, false, false
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case escaped:
			escaped = false
			if c == '|' && !inClass {
				parts = append(parts, cur.String())
				cur.Reset()
				continue
			}
			cur.WriteByte('\\')
		case c == '\\':
			escaped = true
			continue
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == '|' && depth == 0:
			parts = append(parts, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteByte(c)
	}
	if escaped {
		cur.WriteByte('\\')
	}
	parts = append(parts, cur.String())
	if len(parts) < 2 {
		return nil
	}
	for _, p := range parts {
		if strings.TrimSpace(p) == "" {
			return nil
		}
	}
	return parts
}

// alternation joins parts into one pattern matching any of them.
func alternation(parts []string) string {
	return "(?:" + strings.Join(parts, ")|(?:") + ")"
}
