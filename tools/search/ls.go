package search

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/toolhost/toolhost/internal/visible"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

//go:embed ls.md
var lsDescription string

// LSLimit is the most entries LS shows.
const LSLimit = 1000

// LSInput is the input of LS.
type LSInput struct {
	Path   string   `json:"path" jsonschema:"Folder to list, absolute or relative to the workspace root."`
	Ignore []string `json:"ignore,omitempty" jsonschema:"Glob patterns of entry names to leave out, e.g. *.log or node_modules."`
}

var lsSchema = tools.SchemaOf[LSInput](nil)

// LS lists one folder.
type LS struct {
	ws *workspace.Workspace
}

// NewLS returns the LS tool for ws.
func NewLS(ws *workspace.Workspace) *LS { return &LS{ws: ws} }

func (*LS) Name() string                 { return "LS" }
func (*LS) Description() string          { return lsDescription }
func (*LS) InputSchema() json.RawMessage { return lsSchema.JSON() }
func (*LS) SideEffect() tools.SideEffect { return tools.SideEffectNone }
func (*LS) Access(in json.RawMessage) tools.Access {
	var p LSInput
	_ = json.Unmarshal(in, &p)
	return readPaths(p.Path)
}

// Docs documents LS.
func (*LS) Docs() tools.Docs {
	return tools.Docs{
		Short: "List one folder: sub-folders first, then files.",
		Long:  lsDescription,
		Examples: []tools.Example{
			{Title: "The workspace root", Input: json.RawMessage(`{"path":"."}`)},
			{Title: "A folder without build output", Input: json.RawMessage(`{"path":"web","ignore":["dist","*.map"]}`)},
		},
	}
}

// lsEntry is one listed entry.
type lsEntry struct {
	name  string
	dir   bool
	label string
}

func (l *LS) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var in LSInput
	if res := decodeInput("LS", call.Input, &in); res != nil {
		return res, nil
	}
	dir, _, res := resolveDir(l.ws, in.Path, true)
	if res != nil {
		return res, nil
	}
	for _, p := range in.Ignore {
		if !doublestar.ValidatePattern(p) {
			return tools.ErrorResult("ignore pattern %q is not a valid glob (check its brackets and braces).", p), nil
		}
		if err := checkGlobCost("ignore pattern", p); err != nil {
			return tools.ErrorResult("%v.", err), nil
		}
	}
	// Listed through the workspace's jail: a folder swapped for a link to
	// elsewhere after the permission check is refused, not listed.
	root, err := l.ws.OpenDir(workspace.WithApprovedReads(ctx, call.ApprovedReads), dir)
	if err != nil {
		return tools.ErrorResult("cannot list %s: %v.", dir, err), nil
	}
	defer root.Close()
	des, err := readDirIn(root)
	if err != nil {
		return tools.ErrorResult("cannot list %s: %v.", dir, err), nil
	}
	var entries []lsEntry
	for _, d := range des {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		name := d.Name()
		if matchesAny(in.Ignore, name) {
			continue
		}
		e := lsEntry{name: name, label: visible.Name(name)}
		switch {
		case d.Type()&os.ModeSymlink != 0:
			target, _ := root.Readlink(name)
			if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.IsDir() {
				e.dir = true
				e.label += "/"
			}
			e.label += " -> " + visible.Name(target)
		case d.IsDir():
			e.dir = true
			e.label += "/"
		}
		entries = append(entries, e)
	}
	sort.Slice(entries, func(i, j int) bool {
		if entries[i].dir != entries[j].dir {
			return entries[i].dir
		}
		return entries[i].name < entries[j].name
	})
	var b strings.Builder
	b.WriteString(folderLine(dir))
	if len(entries) == 0 {
		b.WriteString("(empty)")
	}
	for i, e := range entries {
		if i == LSLimit {
			fmt.Fprintf(&b, "[%d more entries not shown. Use ignore patterns, or Glob to find what you need.]", len(entries)-LSLimit)
			break
		}
		b.WriteString("  " + e.label + "\n")
	}
	return tools.TextResult(strings.TrimRight(b.String(), "\n")), nil
}

// matchesAny reports whether name matches one of the globs.
func matchesAny(globs []string, name string) bool {
	for _, g := range globs {
		if doublestar.MatchUnvalidated(g, name) {
			return true
		}
	}
	return false
}

// readDirIn lists the folder dir is opened on.
func readDirIn(dir *os.Root) ([]os.DirEntry, error) {
	f, err := dir.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}
