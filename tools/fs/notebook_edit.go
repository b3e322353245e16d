package fs

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/toolhost/toolhost/internal/udiff"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

//go:embed notebook_edit.md
var notebookEditDescription string

type notebookEditParams struct {
	NotebookPath string `json:"notebook_path" jsonschema:"Absolute path of the .ipynb file."`
	CellID       string `json:"cell_id,omitempty" jsonschema:"Id of the cell to change (as Read shows it). For insert, the new cell goes after this one, or first when omitted."`
	NewSource    string `json:"new_source" jsonschema:"The new source of the cell (ignored for delete)."`
	CellType     string `json:"cell_type,omitempty" jsonschema:"Type of the cell; required for insert, defaults to the current type for replace." schema:"enum=code|markdown"`
	EditMode     string `json:"edit_mode,omitempty" jsonschema:"replace (default), insert or delete." schema:"enum=replace|insert|delete"`
}

var notebookEditSchema = tools.SchemaOf[notebookEditParams](nil)

// NotebookEdit replaces, inserts or deletes one cell of a notebook.
type NotebookEdit struct {
	ws *workspace.Workspace
}

// NewNotebookEdit returns the NotebookEdit tool over ws.
func NewNotebookEdit(ws *workspace.Workspace) *NotebookEdit { return &NotebookEdit{ws: ws} }

func (*NotebookEdit) Name() string                 { return "NotebookEdit" }
func (*NotebookEdit) Description() string          { return notebookEditDescription }
func (*NotebookEdit) InputSchema() json.RawMessage { return notebookEditSchema.JSON() }
func (*NotebookEdit) SideEffect() tools.SideEffect { return tools.SideEffectMutating }

// Docs implements tools.Documented.
func (*NotebookEdit) Docs() tools.Docs {
	return tools.Docs{
		Short: "Replace, insert or delete a cell of a Jupyter notebook by its id.",
		Long: "The notebook must have been Read in this session and be unchanged since. Cells are found by " +
			"the id Read shows (cell-N, counting from 0, for notebooks whose cells have no ids). Replacing a " +
			"code cell's source clears its outputs and execution_count: they came from the old code. " +
			"Changing a cell's type adds or drops the fields nbformat requires for it. Inserted cells get an " +
			"id when the notebook uses them (nbformat 4.5+). Everything else is kept, and the file is written " +
			"back in nbformat's layout (sorted keys, the original indentation) through the editor or atomically. " +
			"The structured result's original_file and updated_file are left out past 1 MiB " +
			"(original_fileOmitted, updated_fileOmitted). A notebook of more than 1,000,000 cells, or a new_source " +
			"of more than 1,000,000 lines, is refused.",
		Examples: []tools.Example{
			{Title: "Replace a cell's code", Input: json.RawMessage(`{"notebook_path":"/work/analysis.ipynb","cell_id":"a1b2c3d4","new_source":"df.describe()"}`)},
			{Title: "Insert a markdown cell first", Input: json.RawMessage(`{"notebook_path":"/work/analysis.ipynb","new_source":"# Analysis","cell_type":"markdown","edit_mode":"insert"}`)},
		},
	}
}

// Access implements tools.AccessDescriber.
func (t *NotebookEdit) Access(input json.RawMessage) tools.Access {
	c, res := t.decode(input)
	if res != nil {
		return tools.Access{}
	}
	return c.Access()
}

// notebookCall is one NotebookEdit call: its input decoded, and once
// prepared the new notebook worked out on the file's content, which the
// preview and Execute share.
type notebookCall struct {
	change
	t *NotebookEdit
	p notebookEditParams
	// next, summary and cell are the prepared change: the new file, its
	// one-line summary and what the result says of the cell.
	next    []byte
	summary string
	cell    cellFacts
}

// Decode implements tools.Planner.
func (t *NotebookEdit) Decode(input json.RawMessage) (tools.Plan, *tools.Result) {
	c, res := t.decode(input)
	if res != nil {
		return nil, res
	}
	return c, nil
}

func (t *NotebookEdit) decode(input json.RawMessage) (*notebookCall, *tools.Result) {
	var p notebookEditParams
	if err := json.Unmarshal(input, &p); err != nil {
		return nil, tools.ErrorResult("the input is not a valid NotebookEdit input (%v); send {\"notebook_path\", \"cell_id\", \"new_source\"}.", err)
	}
	countDecode()
	return &notebookCall{change: newChange(t.ws, "notebook_path", p.NotebookPath), t: t, p: p}, nil
}

// refusal is the error of an input no notebook can take.
func (c *notebookCall) refusal() *tools.Result {
	if c.bad != nil {
		return c.bad
	}
	if !strings.EqualFold(filepath.Ext(c.abs), ".ipynb") {
		return tools.ErrorResult("%s is not a Jupyter notebook (.ipynb); use Edit for other files.", c.abs)
	}
	return nil
}

// plan works the change out on the notebook's content (nil: the file does
// not exist); its errors are Modify's plan errors.
func (c *notebookCall) plan(current []byte) ([]byte, error) {
	if current == nil {
		return nil, resultError{notFound(c.abs)}
	}
	out, s, err := planNotebookEdit(current, c.p)
	countPlan()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.abs, err)
	}
	c.summary, c.cell = s, factsOf(current, c.p)
	return out, nil
}

// prepare checks the change against the notebook, as Execute would find
// it, and works it out; a non-nil result is the error the call ends with,
// worded as Execute words it. checkFresh adds the checks that the file
// was read and is unchanged since (left out only for the preview of input
// the user has not approved yet).
func (c *notebookCall) prepare(ctx context.Context, checkFresh bool) *tools.Result {
	if res := c.refusal(); res != nil {
		return res
	}
	fail := func(err error) *tools.Result {
		res, _ := changeResult(err)
		return res // nil for a failure of the machinery: Execute meets it again
	}
	if checkFresh {
		if err := c.ws.CheckRead(c.abs); err != nil {
			return fail(err)
		}
	}
	old, err := c.load(ctx, workspace.ReadFileMax)
	var tooLarge *workspace.TooLargeError
	switch {
	case errors.As(err, &tooLarge):
		return fail(err)
	case err != nil:
		return fail(&workspace.PlanError{Err: fmt.Errorf("cannot read %s: %v", c.abs, err)})
	}
	if checkFresh && old != nil {
		if err := c.checkFresh(); err != nil {
			return fail(err)
		}
	}
	next, err := c.plan(old)
	if err != nil {
		var whole resultError
		if !errors.As(err, &whole) {
			err = &workspace.PlanError{Err: err}
		}
		return fail(err)
	}
	c.base, c.next, c.prepared = old, next, true
	return nil
}

// Prepare implements tools.Plan: a stale notebook, or a cell that is not
// there, fails before the user is asked.
func (c *notebookCall) Prepare(ctx context.Context, _ tools.Host) *tools.Result {
	return c.precheck(c.prepare(ctx, true))
}

// Precheck implements tools.Prechecker for callers that hold raw input
// (the pipeline prepares the Plan instead).
func (t *NotebookEdit) Precheck(ctx context.Context, host tools.Host, input json.RawMessage) *tools.Result {
	c, res := t.decode(input)
	if res != nil {
		return res
	}
	return c.Prepare(ctx, host)
}

// Preview implements tools.Previewer: the diff of the cell the call
// changes (its source, as the user reads it), not of the notebook's JSON.
func (t *NotebookEdit) Preview(ctx context.Context, input json.RawMessage) *tools.Preview {
	c, res := t.decode(input)
	if res != nil || c.prepare(ctx, false) != nil {
		return nil
	}
	return c.Preview(ctx)
}

// Preview implements tools.Plan: the diff of the prepared change of the
// cell.
func (c *notebookCall) Preview(context.Context) *tools.Preview {
	if !c.prepared {
		return nil
	}
	p := c.p
	nb, err := parseNotebook(c.base)
	if err != nil {
		return nil
	}
	before, after, cell := "", p.NewSource, p.CellID
	mode := editMode(p)
	if i := nb.find(p.CellID); i >= 0 && mode != "insert" {
		if cl, err := nb.cell(i); err == nil {
			before = multiline(cl["source"])
		}
		cell = nb.cellID(i)
	}
	if mode == "delete" {
		after = ""
	}
	if mode == "insert" {
		cell = "new cell"
		if p.CellID != "" {
			cell = "new cell after " + p.CellID
		}
	}
	name := fmt.Sprintf("%s [%s]", displayName(c.ws, c.abs), cell)
	// Cut as Write's and Edit's previews are: a new source of millions of
	// lines is not diffed and shown whole.
	hunks, omitted := udiff.HunksOf(before, after, udiff.Changes(before, after), maxPatchBytes)
	return &tools.Preview{Kind: "diff", Text: renderNamedDiff(name, false, hunks, omitted)}
}

// Execute makes the change.
func (t *NotebookEdit) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	c, _ := call.Plan.(*notebookCall)
	if c == nil || c.t != t {
		var res *tools.Result
		if c, res = t.decode(call.Input); res != nil {
			return res, nil
		}
	}
	if res := c.refusal(); res != nil {
		return res, nil
	}
	abs, p := c.abs, c.p
	modified, err := c.modify(ctx, call, "NotebookEdit", 0, func() []byte { return c.next }, c.plan, nil)
	if err != nil {
		return changeResult(err)
	}
	summary, cell := c.summary, c.cell
	res := tools.TextResult(summary + " in " + abs + "." + diskAheadNote(modified))
	// Claude Code's output fields: the cell's type as it now is (not only
	// as given), the language, the old source and the file before and after.
	structured := map[string]any{"notebook_path": abs, "cell_id": p.CellID, "new_source": p.NewSource,
		"cell_type": cell.kind, "language": cell.language, "edit_mode": editMode(p)}
	// As Edit and Write do, a big notebook is not sent back whole, twice.
	echoText(structured, "original_file", modified.Old)
	echoText(structured, "updated_file", modified.New)
	if cell.hadSource {
		structured["old_source"] = cell.oldSource
	}
	res.Structured = structured
	return res, nil
}

// cellFacts are what NotebookEdit's structured result says of the cell.
type cellFacts struct {
	// kind is the cell's type after the edit.
	kind, language string
	// oldSource is the source the cell had (replace and delete).
	oldSource string
	hadSource bool
}

// factsOf reads the facts of the cell an edit of data changes.
func factsOf(data []byte, p notebookEditParams) cellFacts {
	f := cellFacts{kind: p.CellType}
	nb, err := parseNotebook(data)
	if err != nil {
		return f
	}
	f.language = nb.language()
	if editMode(p) == "insert" {
		return f
	}
	if i := nb.find(p.CellID); i >= 0 {
		cell, err := nb.cell(i)
		if err != nil {
			return f
		}
		f.oldSource, f.hadSource = multiline(cell["source"]), true
		if f.kind == "" {
			f.kind, _ = cell["cell_type"].(string)
		}
	}
	return f
}

func editMode(p notebookEditParams) string {
	if p.EditMode == "" {
		return "replace"
	}
	return p.EditMode
}

// maxCellLines caps the lines of a cell's new source: nbformat stores each
// as a string of its own, and a source of millions of empty lines (two
// bytes each in the call) would take gigabytes to lay out and write.
const maxCellLines = 1_000_000

// planNotebookEdit computes the new notebook file and a one-line summary.
// Errors are for the model.
func planNotebookEdit(data []byte, p notebookEditParams) ([]byte, string, error) {
	if n := strings.Count(p.NewSource, "\n") + 1; n > maxCellLines && editMode(p) != "delete" {
		return nil, "", fmt.Errorf("new_source has %d lines, more than the %d a cell may hold (each line is a JSON string in the notebook). Put the data in a file the cell reads, or split it over several cells", n, maxCellLines)
	}
	nb, err := parseNotebook(data)
	if err != nil {
		return nil, "", err
	}
	if at := nb.named(p.CellID); p.CellID != "" && len(at) > 1 {
		// The first would be a guess: the model may mean any of them.
		var pos []string
		for _, i := range at {
			pos = append(pos, "cell-"+strconv.Itoa(i))
		}
		return nil, "", fmt.Errorf("the cell id %q names %d cells (%s by position), so NotebookEdit will not guess which one is meant. Give the cell by its position instead (cell-N, N counted from 0), or make the ids unique", p.CellID, len(at), strings.Join(pos, ", "))
	}
	var summary string
	var edit cellEdit
	switch mode := editMode(p); mode {
	case "insert":
		if p.CellType == "" {
			return nil, "", errors.New("cell_type is required to insert a cell; give \"code\" or \"markdown\"")
		}
		at := 0
		if p.CellID != "" {
			i := nb.find(p.CellID)
			if i < 0 {
				return nil, "", noCell(nb, p.CellID)
			}
			at = i + 1
		}
		cell := map[string]any{"cell_type": p.CellType, "metadata": map[string]any{}, "source": sourceLines(p.NewSource)}
		if p.CellType == "code" {
			cell["outputs"] = []any{}
			cell["execution_count"] = nil
		}
		where := "at the beginning"
		if p.CellID != "" {
			where = "after cell " + p.CellID
		}
		id := fmt.Sprintf("cell-%d", at)
		if nb.usesIDs() {
			id = nb.newCellID()
			cell["id"] = id
		}
		edit = cellEdit{at: at, insert: true, cell: cell}
		summary = fmt.Sprintf("Inserted %s cell %s %s", p.CellType, id, where)
	case "delete", "replace":
		if p.CellID == "" {
			return nil, "", fmt.Errorf("cell_id is required to %s a cell; the cells are %s", mode, nb.ids(20))
		}
		i := nb.find(p.CellID)
		if i < 0 {
			return nil, "", noCell(nb, p.CellID)
		}
		if mode == "delete" {
			edit = cellEdit{at: i}
			summary = "Deleted cell " + p.CellID
			break
		}
		cell, err := nb.cell(i)
		if err != nil {
			return nil, "", fmt.Errorf("cell %s cannot be read (%v)", p.CellID, err)
		}
		cell["source"] = sourceLines(p.NewSource)
		kind, _ := cell["cell_type"].(string)
		if p.CellType != "" && p.CellType != kind {
			kind = p.CellType
			cell["cell_type"] = kind
		}
		if kind == "code" {
			// The old outputs came from the old source: keeping them would
			// show results the code no longer produces.
			cell["outputs"] = []any{}
			cell["execution_count"] = nil
		} else {
			delete(cell, "outputs")
			delete(cell, "execution_count")
		}
		edit = cellEdit{at: i, cell: cell}
		summary = fmt.Sprintf("Replaced the source of %s cell %s", kind, p.CellID)
	default:
		return nil, "", fmt.Errorf("edit_mode %q is not one of replace, insert, delete", mode)
	}
	// Only the changed cell is rewritten; the rest of the file keeps its
	// bytes, so the notebook's own formatting survives on disk.
	if out, ok := nb.splice(edit); ok {
		return out, summary, nil
	}
	out, err := nb.rewrite(&edit)
	if err != nil {
		return nil, "", err
	}
	return out, summary, nil
}

func noCell(nb *notebook, id string) error {
	return fmt.Errorf("there is no cell %q; the cells are %s. Read the notebook to see them", id, nb.ids(20))
}

// Proposal implements tools.Proposer: the notebook's whole new JSON.
func (c *notebookCall) Proposal() (tools.Proposal, bool) {
	return c.proposal("NotebookEdit", false, len(c.next), func() []byte { return c.next })
}
