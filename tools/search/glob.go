package search

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/toolhost/toolhost/internal/ignore"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

//go:embed glob.md
var globDescription string

// GlobLimit is the most paths one Glob call returns.
const GlobLimit = 100

// GlobInput is the input of Glob, as in Claude Code.
type GlobInput struct {
	Pattern string `json:"pattern" jsonschema:"Glob pattern: without a slash it matches file names at any depth (*.go); with one, paths relative to path (src/**/*.{ts,tsx})."`
	Path    string `json:"path,omitempty" jsonschema:"Folder to search, absolute or relative to the workspace root. Omit it to search the workspace root."`
}

// GlobOutput is the structured result of Glob, in Claude Code's shape.
type GlobOutput struct {
	DurationMs   int64    `json:"durationMs"`
	NumFiles     int      `json:"numFiles"`
	Filenames    []string `json:"filenames"`
	Truncated    bool     `json:"truncated"`
	TotalMatches int      `json:"totalMatches"`
}

var globSchema = tools.SchemaOf[GlobInput](nil)

// Glob finds files by path pattern.
type Glob struct {
	ws *workspace.Workspace
}

// NewGlob returns the Glob tool searching ws.
func NewGlob(ws *workspace.Workspace) *Glob { return &Glob{ws: ws} }

func (*Glob) Name() string                 { return "Glob" }
func (*Glob) Description() string          { return globDescription }
func (*Glob) InputSchema() json.RawMessage { return globSchema.JSON() }
func (*Glob) SideEffect() tools.SideEffect { return tools.SideEffectNone }

// Access names the folder the walk starts in: path, joined with the
// pattern's fixed leading folders (an absolute pattern, or "../x/**", can
// reach outside path, and the permission check must see that).
func (*Glob) Access(in json.RawMessage) tools.Access {
	var p GlobInput
	_ = json.Unmarshal(in, &p)
	dir, _ := doublestar.SplitPattern(filepath.ToSlash(strings.TrimSpace(p.Pattern)))
	switch {
	case filepath.IsAbs(dir):
		return tools.Access{ReadPaths: []string{filepath.FromSlash(dir)}}
	case dir != "." && dir != "":
		base := p.Path
		if strings.TrimSpace(base) == "" {
			base = "."
		}
		return tools.Access{ReadPaths: []string{filepath.Join(base, filepath.FromSlash(dir))}}
	}
	return readPaths(p.Path)
}

// Docs documents Glob for `toolhost tools docs`.
func (*Glob) Docs() tools.Docs {
	return tools.Docs{
		Short: "Find files by glob pattern, newest first, ignored files included.",
		Long:  globDescription,
		Examples: []tools.Example{
			{Title: "Every Go file", Input: json.RawMessage(`{"pattern":"**/*.go"}`)},
			{Title: "TypeScript sources under src", Input: json.RawMessage(`{"pattern":"**/*.{ts,tsx}","path":"src"}`)},
		},
	}
}

// globMatch is one matching file with its modification time.
type globMatch struct {
	path  string
	mtime time.Time
}

func (g *Glob) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	start := time.Now()
	var in GlobInput
	if res := decodeInput("Glob", call.Input, &in); res != nil {
		return res, nil
	}
	pattern := strings.TrimSpace(in.Pattern)
	if pattern == "" {
		return tools.ErrorResult("pattern is empty. Give a glob such as **/*.go."), nil
	}
	base, _, res := resolveDir(g.ws, in.Path, true)
	if res != nil {
		return res, nil
	}
	// An absolute pattern carries its own base folder.
	if filepath.IsAbs(pattern) {
		dir, rest := doublestar.SplitPattern(filepath.ToSlash(pattern))
		base, pattern = filepath.FromSlash(dir), rest
	}
	pattern = strings.TrimPrefix(pattern, "./")
	if !doublestar.ValidatePattern(pattern) {
		return tools.ErrorResult("%q is not a valid glob pattern (check its brackets and braces).", in.Pattern), nil
	}
	pattern = anyDepth(pattern)
	if !doublestar.ValidatePattern(pattern) {
		return tools.ErrorResult("%q is not a valid glob pattern (check its brackets and braces).", in.Pattern), nil
	}
	if err := checkGlobCost("pattern", in.Pattern); err != nil {
		return tools.ErrorResult("%v.", err), nil
	}
	// Walk only below the pattern's fixed leading folders ("src/**/*.ts"
	// walks src). The walk root's ancestors still contribute their ignore
	// files, so the result is the same as walking base.
	walkRoot, rest := base, pattern
	if dir, r := doublestar.SplitPattern(pattern); dir != "." && dir != "" {
		walkRoot, rest = filepath.Join(base, filepath.FromSlash(dir)), r
	}
	// A folder leading outside the workspace opens as the user approved it.
	matches, err := g.globFiles(workspace.WithApprovedReads(ctx, call.ApprovedReads), walkRoot, rest)
	var openErr *openDirError
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		matches = nil // the pattern's leading folders do not exist
	case errors.As(err, &openErr):
		return tools.ErrorResult("cannot search %s: %v.", walkRoot, openErr.err), nil
	default:
		return nil, err
	}
	slices.SortFunc(matches, func(a, b globMatch) int {
		if c := b.mtime.Compare(a.mtime); c != 0 {
			return c
		}
		return strings.Compare(a.path, b.path)
	})
	out := GlobOutput{TotalMatches: len(matches), Filenames: []string{}}
	for i, m := range matches {
		if i == GlobLimit {
			out.Truncated = true
			break
		}
		out.Filenames = append(out.Filenames, m.path)
	}
	out.NumFiles = len(out.Filenames)
	out.DurationMs = time.Since(start).Milliseconds()

	var b strings.Builder
	if len(matches) == 0 {
		fmt.Fprintf(&b, "No files match %s in %s.", in.Pattern, base)
	} else {
		b.WriteString(nameLines(out.Filenames))
		if out.Truncated {
			fmt.Fprintf(&b, "\n(Showing the %d newest of %d matching files; %d more not shown. Narrow the pattern or give a more specific path to see them.)",
				GlobLimit, len(matches), len(matches)-GlobLimit)
		}
	}
	r := tools.TextResult(b.String())
	r.Structured = out
	return r, nil
}

// anyDepth gives a pattern without a slash ripgrep's --glob meaning, which
// Claude Code's Glob has: it matches the name at any depth ("*.md" finds
// docs/guide.md too). A pattern with a slash matches the whole relative path.
func anyDepth(pattern string) string {
	if strings.Contains(pattern, "/") {
		return pattern
	}
	return "**/" + pattern
}

// pathMatcher matches a validated pattern against relative paths, with a
// shortcut for the most common shape: "**/" followed by a name pattern
// ("**/*.go") only needs the file's name, and "*.ext" only its suffix.
type pathMatcher struct {
	pattern string
	// name: match the base name against pattern (set for "**/name").
	name bool
	// suffix: when set, the base name only needs to end with it.
	suffix string
}

func newPathMatcher(pattern string) pathMatcher {
	rest, ok := strings.CutPrefix(pattern, "**/")
	if !ok || strings.Contains(rest, "/") || strings.Contains(rest, "**") {
		return pathMatcher{pattern: pattern}
	}
	m := pathMatcher{pattern: rest, name: true}
	if lit, ok := strings.CutPrefix(rest, "*"); ok && !strings.ContainsAny(lit, `*?[]{}\`) {
		m.suffix = lit
	}
	return m
}

func (m pathMatcher) match(rel string) bool {
	if !m.name {
		return doublestar.MatchUnvalidated(m.pattern, rel)
	}
	name := rel[strings.LastIndexByte(rel, '/')+1:]
	if m.suffix != "" {
		return strings.HasSuffix(name, m.suffix)
	}
	return doublestar.MatchUnvalidated(m.pattern, name)
}

// openDirError: the folder to walk could not be opened through the jail
// (it leads outside the workspace, or changed while it was opened).
type openDirError struct{ err error }

func (e *openDirError) Error() string { return e.err.Error() }
func (e *openDirError) Unwrap() error { return e.err }

// globFiles walks root and returns the files whose path relative to root
// matches pattern. root is opened through the workspace's jail and walked
// without leaving it (ignore.WalkRoot), so no name outside the workspace
// shows, however its folders change meanwhile.
func (g *Glob) globFiles(ctx context.Context, root, pattern string) ([]globMatch, error) {
	dir, err := g.ws.OpenDir(ctx, root)
	if err != nil {
		return nil, &openDirError{err}
	}
	defer dir.Close()
	m := newPathMatcher(pattern)
	var mu sync.Mutex
	var matches []globMatch
	// Ignore files do not hide anything from Glob, as in Claude Code: build
	// outputs, logs and .env files are what one often looks for by name.
	// Version-control folders are still skipped.
	err = ignore.WalkRoot(ctx, dir, root, ignore.Options{NoIgnore: true}, func(f ignore.File) error {
		if !m.match(f.Rel) {
			return nil
		}
		mtime, err := f.ModTime()
		if err != nil {
			return nil // removed since the folder was read
		}
		mu.Lock()
		matches = append(matches, globMatch{path: f.Path, mtime: mtime})
		mu.Unlock()
		return nil
	})
	return matches, err
}
