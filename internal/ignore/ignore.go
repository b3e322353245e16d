// Package ignore decides which files a search skips, the way ripgrep does by
// default: .gitignore files (from the search root up to the repository root,
// and in every folder below), .git/info/exclude, .ignore and .rgignore files,
// and the folders of version-control systems. Hidden files are not skipped.
// Patterns with a slash (anchored, or with "**") are matched by go-git's
// gitignore package, which agrees with git on them; patterns without one
// are matched against the entry's own name, as git does, with fast paths for
// the common shapes (a plain name, "*.ext", "prefix*").
package ignore

import (
	"bufio"
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/toolhost/toolhost/internal/pathutil"
)

// VCSDirs are the folders of version-control systems. They are never
// searched, listed or globbed, whatever the ignore files say.
var VCSDirs = []string{".git", ".hg", ".svn", ".bzr", ".jj", ".sl"}

// IsVCSDir reports whether a folder name is one of VCSDirs.
func IsVCSDir(name string) bool {
	for _, v := range VCSDirs {
		if name == v {
			return true
		}
	}
	return false
}

// Rules are the ignore patterns that apply inside one folder of a walk.
// A Rules value never changes once built; Child returns a new one for a
// sub-folder that has its own ignore files. Safe for concurrent use.
type Rules struct {
	// prefix is the path, in components, from the folder the patterns'
	// domains are relative to, down to the walk root.
	prefix []string
	// git holds .gitignore and info/exclude patterns, lowest priority first.
	git []rule
	// dot holds .ignore then .rgignore patterns; they beat .gitignore, as in
	// ripgrep.
	dot    []rule
	hasAny bool
}

// ForRootAt returns the rules that apply at root: the ignore files of
// root's ancestors (.gitignore only up to the enclosing repository's top
// folder), the repository's .git/info/exclude, and root's own ignore files,
// read through rootDir, root opened (relative to it, following no link);
// root's ancestors are read by path.
func ForRootAt(root string, rootDir *os.File) *Rules { return forRoot(root, rootDir) }

// FilesAbove returns the ignore files above root that exist as regular
// files: the .gitignore, .ignore and .rgignore files of root's ancestors
// and the .git/info/exclude files among them. A search of root honours
// them (ForRoot reads them; a jailed ripgrep must be let read them).
func FilesAbove(root string) []string {
	var files []string
	for dir := filepath.Dir(filepath.Clean(root)); ; dir = filepath.Dir(dir) {
		for _, name := range []string{".gitignore", ".ignore", ".rgignore", filepath.Join(".git", "info", "exclude")} {
			p := filepath.Join(dir, name)
			if st, err := os.Lstat(p); err == nil && st.Mode().IsRegular() {
				files = append(files, p)
			}
		}
		if filepath.Dir(dir) == dir {
			return files
		}
	}
}

// forRoot is ForRoot reading root's own ignore files through rootDir, the
// folder root opened, when it is set (ancestors are read by path).
func forRoot(root string, rootDir *os.File) *Rules {
	root = filepath.Clean(root)
	// Ancestors from root upwards, root first.
	var chain []string
	for dir := root; ; {
		chain = append(chain, dir)
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	// repoTop is the index in chain of the nearest folder holding .git.
	repoTop := -1
	for i, dir := range chain {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			repoTop = i
			break
		}
	}
	// The base of the domains is the highest folder that contributes
	// patterns; find it first so every domain is relative to it.
	type source struct {
		idx  int
		file string
		git  bool
	}
	read := func(s source) []string {
		if s.idx == 0 && rootDir != nil {
			rel, _ := filepath.Rel(root, s.file)
			return readPatternAt(rootDir, rel)
		}
		return readPatternFile(s.file)
	}
	var sources []source
	for i := len(chain) - 1; i >= 0; i-- {
		gitOK := repoTop < 0 || i <= repoTop
		if gitOK {
			if i == repoTop {
				sources = append(sources, source{i, filepath.Join(chain[i], ".git", "info", "exclude"), true})
			}
			sources = append(sources, source{i, filepath.Join(chain[i], ".gitignore"), true})
		}
		sources = append(sources, source{i, filepath.Join(chain[i], ".ignore"), false}, source{i, filepath.Join(chain[i], ".rgignore"), false})
	}
	type loaded struct {
		idx   int
		git   bool
		lines []string
	}
	var found []loaded
	top := 0
	for _, s := range sources {
		lines := read(s)
		if len(lines) == 0 {
			continue
		}
		found = append(found, loaded{s.idx, s.git, lines})
		top = max(top, s.idx)
	}
	r := &Rules{}
	if len(found) == 0 {
		return r
	}
	// prefix: components from chain[top] down to root.
	if top > 0 {
		rel, err := filepath.Rel(chain[top], root)
		if err == nil && rel != "." {
			r.prefix = strings.Split(filepath.ToSlash(rel), "/")
		}
	}
	for _, f := range found {
		var domain []string
		if f.idx < top {
			rel, _ := filepath.Rel(chain[top], chain[f.idx])
			if rel != "." {
				domain = strings.Split(filepath.ToSlash(rel), "/")
			}
		}
		for _, l := range f.lines {
			p := parseRule(l, domain)
			if f.git {
				r.git = append(r.git, p)
			} else {
				r.dot = append(r.dot, p)
			}
		}
	}
	r.finish()
	return r
}

func (r *Rules) finish() {
	r.hasAny = len(r.git)+len(r.dot) > 0
}

// ChildAt returns the rules inside the open folder d, at rel
// (slash-separated components below the walk root), whose entries were
// already read: r plus the ignore files among entries, opened relative to
// d, following no link. It returns r itself when d has none.
func (r *Rules) ChildAt(d *os.File, rel []string, entries []fs.DirEntry) *Rules {
	return r.childOf(func(name string) []string { return readPatternAt(d, name) }, rel, entries)
}

func (r *Rules) childOf(read func(name string) []string, rel []string, entries []fs.DirEntry) *Rules {
	var git, dot, rg, repo bool
	for _, e := range entries {
		switch e.Name() {
		case ".gitignore":
			git = true
		case ".ignore":
			dot = true
		case ".rgignore":
			rg = true
		case ".git":
			repo = true
		}
	}
	if !git && !dot && !rg && !repo {
		return r
	}
	return r.child(read, rel, git, dot, rg, repo)
}

// child builds the rules inside dir. A folder holding .git starts a nested
// repository: the .gitignore patterns of the folders above stop applying
// (as in git and ripgrep) and its info/exclude starts to.
func (r *Rules) child(read func(name string) []string, rel []string, git, dot, rg, repo bool) *Rules {
	var gitLines, dotLines []string
	if repo {
		gitLines = read(filepath.Join(".git", "info", "exclude"))
	}
	if git {
		gitLines = append(gitLines, read(".gitignore")...)
	}
	if dot {
		dotLines = read(".ignore")
	}
	if rg {
		dotLines = append(dotLines, read(".rgignore")...)
	}
	if len(gitLines) == 0 && len(dotLines) == 0 && (!repo || len(r.git) == 0) {
		return r
	}
	domain := append(append([]string(nil), r.prefix...), rel...)
	c := &Rules{prefix: r.prefix}
	if !repo {
		c.git = append([]rule(nil), r.git...)
	}
	for _, l := range gitLines {
		c.git = append(c.git, parseRule(l, domain))
	}
	c.dot = append([]rule(nil), r.dot...)
	for _, l := range dotLines {
		c.dot = append(c.dot, parseRule(l, domain))
	}
	c.finish()
	return c
}

// Ignored reports whether the entry at rel (components below the walk root)
// is ignored. Ancestors are not checked: a walk does not enter an ignored
// folder in the first place.
func (r *Rules) Ignored(rel []string, isDir bool) bool {
	if r == nil || !r.hasAny {
		return false
	}
	// The full path is built only if a slash pattern needs it.
	var full []string
	fullPath := func() []string {
		if full == nil {
			full = rel
			if len(r.prefix) > 0 {
				full = make([]string, 0, len(r.prefix)+len(rel))
				full = append(append(full, r.prefix...), rel...)
			}
		}
		return full
	}
	name := rel[len(rel)-1]
	// A .ignore/.rgignore verdict, either way, beats .gitignore.
	for _, rules := range [][]rule{r.dot, r.git} {
		for i := len(rules) - 1; i >= 0; i-- {
			if m := rules[i].match(name, fullPath, isDir); m != gitignore.NoMatch {
				return m == gitignore.Exclude
			}
		}
	}
	return false
}

// rule is one ignore pattern.
type rule struct {
	// glob matches patterns with a slash (go-git); nil for name patterns.
	glob gitignore.Pattern
	// For name patterns: the shape, its text, and the flags.
	kind    nameKind
	text    string
	negate  bool
	dirOnly bool
}

// nameKind is the shape of a name pattern, for matching without
// filepath.Match where possible.
type nameKind int

const (
	nameExact  nameKind = iota // "vendor"
	nameSuffix                 // "*.log": text is ".log"
	namePrefix                 // "generated_*": text is "generated_"
	nameGlob                   // anything else: filepath.Match
)

// parseRule parses one line of an ignore file found in the folder domain
// (components below the rules' base).
func parseRule(line string, domain []string) rule {
	p := line
	r := rule{}
	if strings.HasPrefix(p, "!") {
		r.negate, p = true, p[1:]
	}
	if !strings.HasSuffix(p, "\\ ") {
		p = strings.TrimRight(p, " ")
	}
	if strings.HasSuffix(p, "/") {
		r.dirOnly, p = true, p[:len(p)-1]
	}
	if strings.Contains(p, "/") {
		r.glob = gitignore.ParsePattern(line, domain)
		return r
	}
	const meta = "*?[\\"
	switch {
	case !strings.ContainsAny(p, meta):
		r.kind, r.text = nameExact, p
	case strings.HasPrefix(p, "*") && !strings.ContainsAny(p[1:], meta):
		r.kind, r.text = nameSuffix, p[1:]
	case strings.HasSuffix(p, "*") && !strings.ContainsAny(p[:len(p)-1], meta):
		r.kind, r.text = namePrefix, p[:len(p)-1]
	default:
		r.kind, r.text = nameGlob, p
	}
	return r
}

// match says whether the rule excludes, includes or ignores an entry. Name
// patterns look at the entry's name only: its folders were checked when the
// walk entered them.
func (r *rule) match(name string, fullPath func() []string, isDir bool) gitignore.MatchResult {
	if r.glob != nil {
		return r.glob.Match(fullPath(), isDir)
	}
	if r.dirOnly && !isDir {
		return gitignore.NoMatch
	}
	var ok bool
	switch r.kind {
	case nameExact:
		ok = name == r.text
	case nameSuffix:
		ok = strings.HasSuffix(name, r.text)
	case namePrefix:
		ok = strings.HasPrefix(name, r.text)
	default:
		ok, _ = filepath.Match(r.text, name)
	}
	switch {
	case !ok:
		return gitignore.NoMatch
	case r.negate:
		return gitignore.Include
	}
	return gitignore.Exclude
}

// readPatternFile returns the pattern lines of an ignore file: no blank
// lines, no comments, no trailing CR. A missing file has none.
func readPatternFile(name string) []string {
	data, err := pathutil.ReadFile(name, maxPatternBytes)
	if err != nil {
		return nil
	}
	return patternLines(data)
}

// maxPatternBytes bounds the ignore files read.
const maxPatternBytes = 16 << 20

// readPatternAt is readPatternFile for the file at rel (slash- or
// separator-separated) below the open folder d, opened relative to it
// without following any link.
func readPatternAt(d *os.File, rel string) []string {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	dir := d
	for i, name := range parts {
		next, err := openAt(dir, name, name, i < len(parts)-1)
		if dir != d {
			dir.Close()
		}
		if err != nil {
			return nil
		}
		dir = next
	}
	defer dir.Close()
	if _, err := pathutil.Regular(dir, rel); err != nil {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(dir, maxPatternBytes+1))
	if err != nil || len(data) > maxPatternBytes {
		return nil
	}
	return patternLines(data)
}

// patternLines returns the pattern lines of an ignore file's content.
func patternLines(data []byte) []string {
	if len(data) == 0 {
		return nil
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		l := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		lines = append(lines, l)
	}
	return lines
}
