package search

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/toolhost/toolhost/internal/ignore"
	"github.com/toolhost/toolhost/internal/visible"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

//go:embed tree.md
var treeDescription string

// Tree limits.
const (
	DefaultTreeDepth = 3
	TreeLimit        = 500
)

// TreeInput is the input of Tree.
type TreeInput struct {
	Path     string `json:"path,omitempty" jsonschema:"Folder to show, absolute or relative to the workspace root. Defaults to the workspace root."`
	MaxDepth *int   `json:"max_depth,omitempty" jsonschema:"Levels below the folder to show. Default 3." schema:"minimum=1"`
}

var treeSchema = tools.SchemaOf[TreeInput](nil)

// Tree shows a folder tree.
type Tree struct {
	ws *workspace.Workspace
}

// NewTree returns the Tree tool for ws.
func NewTree(ws *workspace.Workspace) *Tree { return &Tree{ws: ws} }

func (*Tree) Name() string                 { return "Tree" }
func (*Tree) Description() string          { return treeDescription }
func (*Tree) InputSchema() json.RawMessage { return treeSchema.JSON() }
func (*Tree) SideEffect() tools.SideEffect { return tools.SideEffectNone }
func (*Tree) Access(in json.RawMessage) tools.Access {
	var p TreeInput
	_ = json.Unmarshal(in, &p)
	return readPaths(p.Path)
}

// Docs documents Tree.
func (*Tree) Docs() tools.Docs {
	return tools.Docs{
		Short: "Show a folder tree (respecting .gitignore) down to a depth.",
		Long:  treeDescription,
		Examples: []tools.Example{
			{Title: "The project's layout", Input: json.RawMessage(`{"max_depth":2}`)},
			{Title: "One package in depth", Input: json.RawMessage(`{"path":"internal/server","max_depth":5}`)},
		},
	}
}

// treeWalker renders a tree, counting what it shows and what it leaves out.
type treeWalker struct {
	ctx      context.Context
	maxDepth int
	b        strings.Builder
	shown    int
	omitted  int
	dirs     int
	files    int
}

func (t *Tree) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var in TreeInput
	if res := decodeInput("Tree", call.Input, &in); res != nil {
		return res, nil
	}
	root, _, res := resolveDir(t.ws, in.Path, true)
	if res != nil {
		return res, nil
	}
	depth := DefaultTreeDepth
	if in.MaxDepth != nil {
		depth = max(*in.MaxDepth, 1)
	}
	// Walked through the workspace's jail: each folder is opened inside
	// its parent and never leads outside, however the tree changes.
	dir, err := t.ws.OpenDir(workspace.WithApprovedReads(ctx, call.ApprovedReads), root)
	if err != nil {
		return tools.ErrorResult("cannot list %s: %v.", root, err), nil
	}
	defer dir.Close()
	w := &treeWalker{ctx: ctx, maxDepth: depth}
	w.b.WriteString(folderLine(root))
	top, err := dir.Open(".")
	if err != nil {
		return tools.ErrorResult("cannot list %s: %v.", root, err), nil
	}
	rules := ignore.ForRootAt(root, top)
	top.Close()
	if err := w.dir(dir, nil, rules, "", 1); err != nil {
		return nil, err
	}
	fmt.Fprintf(&w.b, "\n%s, %s", plural(w.dirs, "folder", "folders"), plural(w.files, "file", "files"))
	if w.omitted > 0 {
		fmt.Fprintf(&w.b, " shown; at least %d more entries not shown (limit %d). Use a smaller max_depth or a deeper path.", w.omitted, TreeLimit)
	}
	return tools.TextResult(w.b.String()), nil
}

// treeEntry is one entry of a folder as Tree shows it.
type treeEntry struct {
	name string
	dir  bool
}

// list returns the entries of dir that the ignore rules keep, folders
// first. Matching a large folder against a large ignore file takes long,
// so ctx is checked before each entry.
func list(ctx context.Context, dir *os.Root, rel []string, rules *ignore.Rules) ([]treeEntry, *ignore.Rules, error) {
	if dir == nil {
		return nil, rules, nil
	}
	f, err := dir.Open(".")
	if err != nil {
		return nil, rules, nil
	}
	defer f.Close()
	des, _ := f.ReadDir(-1)
	if len(rel) > 0 {
		rules = rules.ChildAt(f, rel, des)
	}
	var out []treeEntry
	parts := append(append([]string(nil), rel...), "")
	for _, d := range des {
		if err := ctx.Err(); err != nil {
			return nil, rules, err
		}
		name := d.Name()
		isDir := d.IsDir()
		if isDir && ignore.IsVCSDir(name) {
			continue
		}
		parts[len(rel)] = name
		if rules.Ignored(parts, isDir) {
			continue
		}
		out = append(out, treeEntry{name: name, dir: isDir})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].dir != out[j].dir {
			return out[i].dir
		}
		return out[i].name < out[j].name
	})
	return out, rules, nil
}

// dir renders the entries of one folder at depth (1 = the root's entries).
func (w *treeWalker) dir(path *os.Root, rel []string, rules *ignore.Rules, indent string, depth int) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	entries, rules, err := list(w.ctx, path, rel, rules)
	if err != nil {
		return err
	}
	for i, e := range entries {
		if w.shown >= TreeLimit {
			w.omitted += len(entries) - i
			return nil
		}
		branch, next := "├── ", "│   "
		if i == len(entries)-1 {
			branch, next = "└── ", "    "
		}
		w.shown++
		if !e.dir {
			w.files++
			w.b.WriteString(indent + branch + visible.Name(e.name) + "\n")
			continue
		}
		w.dirs++
		// Opened inside path: a folder swapped for a link to elsewhere
		// since path was read is not entered.
		childPath, _ := path.OpenRoot(e.name)
		childRel := append(append([]string(nil), rel...), e.name)
		if depth >= w.maxDepth {
			inside, _, err := list(w.ctx, childPath, childRel, rules)
			closeRoot(childPath)
			if err != nil {
				return err
			}
			note := ""
			if len(inside) > 0 {
				note = fmt.Sprintf(" (%s)", plural(len(inside), "entry", "entries"))
			}
			w.b.WriteString(indent + branch + visible.Name(e.name) + "/" + note + "\n")
			continue
		}
		w.b.WriteString(indent + branch + visible.Name(e.name) + "/\n")
		err := w.dir(childPath, childRel, rules, indent+next, depth+1)
		closeRoot(childPath)
		if err != nil {
			return err
		}
	}
	return nil
}

// closeRoot closes a folder that may not have opened.
func closeRoot(r *os.Root) {
	if r != nil {
		r.Close()
	}
}
