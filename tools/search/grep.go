package search

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/toolhost/toolhost/internal/pathutil"
	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

//go:embed grep.md
var grepDescription string

// Grep output modes.
const (
	ModeFilesWithMatches = "files_with_matches"
	ModeContent          = "content"
	ModeCount            = "count"
)

// DefaultHeadLimit is Grep's head_limit when the input has none.
const DefaultHeadLimit = 250

// GrepInput is the input of Grep, as in Claude Code.
type GrepInput struct {
	Pattern      string `json:"pattern" jsonschema:"Regular expression to search for (ripgrep syntax)."`
	Path         string `json:"path,omitempty" jsonschema:"File or folder to search, absolute or relative to the workspace root. Defaults to the workspace root."`
	Glob         string `json:"glob,omitempty" jsonschema:"Only search files matching this glob, e.g. *.go or *.{ts,tsx}; several separated by spaces; a leading ! excludes."`
	OutputMode   string `json:"output_mode,omitempty" jsonschema:"content: matching lines; files_with_matches: file paths (default); count: matches per file." schema:"enum=content|files_with_matches|count"`
	Before       *int   `json:"-B,omitempty" jsonschema:"Lines of context before each match (content mode)." schema:"minimum=0"`
	After        *int   `json:"-A,omitempty" jsonschema:"Lines of context after each match (content mode)." schema:"minimum=0"`
	ContextC     *int   `json:"-C,omitempty" jsonschema:"Same as context." schema:"minimum=0"`
	Context      *int   `json:"context,omitempty" jsonschema:"Lines of context before and after each match (content mode)." schema:"minimum=0"`
	LineNumbers  *bool  `json:"-n,omitempty" jsonschema:"Show line numbers (content mode). Default true."`
	IgnoreCase   bool   `json:"-i,omitempty" jsonschema:"Ignore case."`
	OnlyMatching bool   `json:"-o,omitempty" jsonschema:"Show only the matched parts of lines, one per line (content mode)."`
	Type         string `json:"type,omitempty" jsonschema:"Only search files of this ripgrep type: go, py, js, ts, rust, java, ..."`
	HeadLimit    *int   `json:"head_limit,omitempty" jsonschema:"Return at most this many entries (lines, files or counts). Default 250; 0 means no limit." schema:"minimum=0"`
	Offset       int    `json:"offset,omitempty" jsonschema:"Skip this many entries before applying head_limit. Default 0." schema:"minimum=0"`
	Multiline    bool   `json:"multiline,omitempty" jsonschema:"Let matches span lines and . match newlines. Default false."`
}

// GrepOutput is the structured result of Grep, in Claude Code's shape.
type GrepOutput struct {
	Mode       string   `json:"mode"`
	NumFiles   int      `json:"numFiles"`
	Filenames  []string `json:"filenames"`
	Content    string   `json:"content,omitempty"`
	NumLines   int      `json:"numLines,omitempty"`
	NumMatches int      `json:"numMatches,omitempty"`
	// TotalFiles (files_with_matches) and TotalLines (content) count all
	// the entries, those head_limit and offset left out included, as
	// Claude Code's do.
	TotalFiles    int `json:"totalFiles,omitempty"`
	TotalLines    int `json:"totalLines,omitempty"`
	AppliedLimit  int `json:"appliedLimit,omitempty"`
	AppliedOffset int `json:"appliedOffset,omitempty"`
}

var grepSchema = tools.SchemaOf[GrepInput](nil)

// grepQuery is a validated Grep call, as the backends see it.
type grepQuery struct {
	pattern      string
	root         string // absolute file or folder
	globs        []string
	fileType     string
	typeGlobs    []string
	ignoreCase   bool
	multiline    bool
	mode         string
	before       int
	after        int
	onlyMatching bool
	// need is how many entries from the start of the result a content
	// search must keep the lines of: offset+head_limit, 0 for all
	// (windowNeed).
	need int
	// rank, when set (grep.priority), orders files by kind before the
	// usual order.
	rank func(path string) int
	// file, when root is a single file, is root opened through the
	// workspace's jail (Workspace.OpenRegular): the backends search it,
	// not whatever root names by the time they open it.
	file *os.File
	// dir, when root is a folder, is root opened through the workspace's
	// jail (Workspace.OpenDir): the Go backend walks it and never leaves
	// it, and ripgrep runs jailed by Landlock to read only beneath it.
	dir *os.Root
}

// grepBackend runs a query. A *queryError is a problem with the input (a
// bad pattern); any other error is a failure of the machine.
type grepBackend interface {
	search(ctx context.Context, q *grepQuery) (searchResult, error)
	name() string
}

// searchResult is what a backend found.
type searchResult struct {
	hits []*fileHits
	// stopped: the content kept reached maxCollectedBytes and the search
	// ended early (the hits are then an arbitrary part of all).
	stopped bool
	// unsearched says what could not be searched (a folder or file that
	// could not be opened or read, a path too long for the system), as
	// the backend reported it; the search went on without it.
	unsearched []string
}

// maxUnsearchedShown bounds the unreadable paths a result names.
const maxUnsearchedShown = 10

// unsearchedNote says what was not searched, so that "No files found"
// or a short list is not taken for the whole truth.
func unsearchedNote(unsearched []string) string {
	if len(unsearched) == 0 {
		return ""
	}
	shown := unsearched[:min(len(unsearched), maxUnsearchedShown)]
	var b strings.Builder
	fmt.Fprintf(&b, "\n\n[Not searched: %s could not be read, so matches there are missing from these results:", plural(len(unsearched), "path", "paths"))
	for _, u := range shown {
		b.WriteString("\n  " + u)
	}
	if more := len(unsearched) - len(shown); more > 0 {
		fmt.Fprintf(&b, "\n  … and %d more", more)
	}
	b.WriteString("\nSearch such a place with a shorter path (a path below it), or check its permissions.]")
	return b.String()
}

// maxCollectedBytes bounds the matching and context text a content search
// holds, so a pattern matching nearly every line of a huge tree cannot
// exhaust the server's memory. A window holds little more than the lines
// it can show, so only a large head_limit or offset (or 0, no limit)
// reaches it.
var maxCollectedBytes int64 = 64 << 20

// queryError is an input problem reported by a backend.
type queryError struct{ msg string }

func (e *queryError) Error() string { return e.msg }

// Grep searches file contents.
type Grep struct {
	ws      *workspace.Workspace
	backend grepBackend
	// settings gives grep.priority and grep.splitAlternatives; nil means
	// the defaults (both off).
	settings func() *settings.Settings
}

// WithSettings makes g read the grep.* settings from cfg on every call.
func (g *Grep) WithSettings(cfg func() *settings.Settings) *Grep {
	g.settings = cfg
	return g
}

func (g *Grep) current() *settings.Settings {
	if g.settings == nil {
		return nil
	}
	return g.settings()
}

// FindRipgrep returns the path of rg on PATH, or "" when there is none.
func FindRipgrep() string {
	p, err := pathutil.LookPathAbs("rg")
	if err != nil {
		return ""
	}
	return p
}

// NewGrep returns the Grep tool searching ws with the ripgrep binary at
// rgPath, or with the Go implementation when rgPath is "".
func NewGrep(ws *workspace.Workspace, rgPath string) *Grep {
	if rgPath == "" {
		return &Grep{ws: ws, backend: nativeGrep{}}
	}
	return &Grep{ws: ws, backend: newRipgrep(rgPath)}
}

// WithLog makes g say in log, once, which backend searches folders (rg
// jailed by Landlock, or Go when the jail cannot be had).
func (g *Grep) WithLog(log *slog.Logger) *Grep {
	if rg, ok := g.backend.(*ripgrep); ok {
		rg.log = log
	}
	return g
}

// Backend names the search engine in use ("ripgrep" or "go").
func (g *Grep) Backend() string { return g.backend.name() }

// FolderSearch says which engine searches folders and how it is jailed:
// ripgrep under Landlock, or the Go backend when ripgrep is not installed
// or cannot be jailed (with the reason). It is part of toolhost/status.
func (g *Grep) FolderSearch(ctx context.Context) string {
	if rg, ok := g.backend.(*ripgrep); ok {
		return rg.folderSearch(ctx)
	}
	return "go, jailed by os.Root (ripgrep is not installed)"
}

func (*Grep) Name() string                 { return "Grep" }
func (*Grep) Description() string          { return grepDescription }
func (*Grep) InputSchema() json.RawMessage { return grepSchema.JSON() }
func (*Grep) SideEffect() tools.SideEffect { return tools.SideEffectNone }
func (*Grep) Access(in json.RawMessage) tools.Access {
	var p GrepInput
	_ = json.Unmarshal(in, &p)
	return readPaths(p.Path)
}

// Docs documents Grep for `toolhost tools docs`.
func (*Grep) Docs() tools.Docs {
	return tools.Docs{
		Short: "Search file contents with a regular expression (ripgrep), respecting .gitignore.",
		Long:  grepDescription,
		Examples: []tools.Example{
			{Title: "Files that mention a function", Input: json.RawMessage(`{"pattern":"func NewServer"}`)},
			{Title: "Matching lines with context in Go files", Input: json.RawMessage(`{"pattern":"TODO|FIXME","type":"go","output_mode":"content","-C":2}`)},
			{Title: "Counts per file, case-insensitive", Input: json.RawMessage(`{"pattern":"error","-i":true,"output_mode":"count","glob":"*.{ts,tsx}"}`)},
		},
	}
}

func (g *Grep) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var in GrepInput
	if res := decodeInput("Grep", call.Input, &in); res != nil {
		return res, nil
	}
	q, res := g.query(&in)
	if res != nil {
		return res, nil
	}
	fi, err := os.Stat(q.root)
	if err != nil {
		return tools.ErrorResult("cannot search %s: %v. Check the path; Glob finds files by name.", q.root, err), nil
	}
	if !fi.IsDir() {
		// A file outside the workspace (a link inside it pointing
		// outside included) is opened as the permission checker
		// approved it, by its real path, or not at all.
		f, _, err := g.ws.OpenRegularContext(workspace.WithApprovedReads(ctx, call.ApprovedReads), q.root)
		if err != nil {
			return tools.ErrorResult("cannot search %s: %v.", q.root, err), nil
		}
		defer f.Close()
		q.file = f
	} else {
		dir, err := g.ws.OpenDir(workspace.WithApprovedReads(ctx, call.ApprovedReads), q.root)
		if err != nil {
			return tools.ErrorResult("cannot search %s: %v.", q.root, err), nil
		}
		defer dir.Close()
		q.dir = dir
	}
	limit := DefaultHeadLimit
	if in.HeadLimit != nil {
		limit = *in.HeadLimit
	}
	offset := max(in.Offset, 0)
	q.need = windowNeed(limit, offset)
	st := g.current()
	q.rank = rankFor(st)
	found, err := g.backend.search(ctx, q)
	note := ""
	if err == nil && len(found.hits) == 0 && st != nil && st.Grep.SplitAlternatives {
		if parts := alternatives(q.pattern); parts != nil {
			retry := *q
			retry.pattern = alternation(parts)
			if again, err2 := g.backend.search(ctx, &retry); err2 == nil && len(again.hits) > 0 {
				found, q = again, &retry
				note = fmt.Sprintf("\n\n[%q matched nothing, so each alternative was searched instead: %s (grep.splitAlternatives).]", in.Pattern, strings.Join(parts, ", "))
			}
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var qe *queryError
		if errors.As(err, &qe) {
			return tools.ErrorResult("%s", qe.msg), nil
		}
		if q.file != nil {
			return tools.ErrorResult("cannot search %s: %v. It changed while it was searched (a folder on its way was moved or replaced); try again once it is in place.", q.root, err), nil
		}
		return nil, err
	}
	lineNumbers := in.LineNumbers == nil || *in.LineNumbers
	text, out := formatGrep(q, found.hits, lineNumbers, limit, offset)
	text += note + unsearchedNote(found.unsearched)
	if found.stopped {
		text += fmt.Sprintf("\n\n[The search stopped early after collecting %d MiB of matching lines, so these results are incomplete and not in full order. Narrow the pattern, the path or the glob, or use files_with_matches or count mode.]", maxCollectedBytes>>20)
	}
	r := tools.TextResult(text)
	r.Structured = out
	return r, nil
}

// query validates the input into a grepQuery.
func (g *Grep) query(in *GrepInput) (*grepQuery, *tools.Result) {
	if in.Pattern == "" {
		return nil, tools.ErrorResult("pattern is empty. Give a regular expression to search for.")
	}
	root, _, res := resolveDir(g.ws, in.Path, false)
	if res != nil {
		return nil, res
	}
	mode := in.OutputMode
	if mode == "" {
		mode = ModeFilesWithMatches
	}
	switch mode {
	case ModeFilesWithMatches, ModeContent, ModeCount:
	default:
		return nil, tools.ErrorResult("output_mode %q is not one of content, files_with_matches, count.", in.OutputMode)
	}
	q := &grepQuery{
		pattern:      in.Pattern,
		root:         root,
		globs:        splitGlobs(in.Glob),
		ignoreCase:   in.IgnoreCase,
		multiline:    in.Multiline,
		mode:         mode,
		onlyMatching: in.OnlyMatching && mode == ModeContent,
	}
	for _, g := range q.globs {
		if p := strings.Trim(strings.TrimPrefix(g, "!"), "/"); !doublestar.ValidatePattern(p) {
			return nil, tools.ErrorResult("glob %q is not a valid glob pattern (check its brackets and braces).", g)
		}
		if err := checkGlobCost("glob", g); err != nil {
			return nil, tools.ErrorResult("%v.", err)
		}
	}
	if in.Type != "" {
		globs, ok := fileTypeGlobs(in.Type)
		if !ok {
			return nil, tools.ErrorResult("unknown file type %q. Use a ripgrep type such as %s, or the glob parameter.", in.Type, someFileTypes())
		}
		q.fileType, q.typeGlobs = in.Type, globs
	}
	if mode == ModeContent && !q.onlyMatching {
		both := 0
		for _, c := range []*int{in.ContextC, in.Context} {
			if c != nil {
				both = *c
			}
		}
		q.before, q.after = both, both
		if in.Before != nil {
			q.before = *in.Before
		}
		if in.After != nil {
			q.after = *in.After
		}
		q.before, q.after = max(q.before, 0), max(q.after, 0)
	}
	return q, nil
}

// splitGlobs splits Grep's glob parameter: globs are separated by spaces,
// and by commas outside braces ("*.go,*.md" is two globs, "*.{ts,tsx}" one).
func splitGlobs(s string) []string {
	var out []string
	for _, field := range strings.Fields(s) {
		if strings.Contains(field, "{") {
			out = append(out, field)
			continue
		}
		for _, g := range strings.Split(field, ",") {
			if g != "" {
				out = append(out, g)
			}
		}
	}
	return out
}

// errorf builds a queryError.
func errorf(format string, args ...any) error {
	return &queryError{msg: fmt.Sprintf(format, args...)}
}
