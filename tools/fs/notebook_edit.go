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
func (*NotebookEdit) Access(input json.RawMessage) tools.Access {
	var p notebookEditParams
	if json.Unmarshal(input, &p) != nil || p.NotebookPath == "" {
		return tools.Access{}
	}
	return tools.Access{WritePaths: []string{p.NotebookPath}}
}

// Preview implements tools.Previewer: the diff of the cell the call
// changes (its source, as the user reads it), not of the notebook's JSON.
func (t *NotebookEdit) Preview(_ context.Context, input json.RawMessage) *tools.Preview {
	var p notebookEditParams
	if json.Unmarshal(input, &p) != nil {
		return nil
	}
	abs, bad := resolve(t.ws, "notebook_path", p.NotebookPath)
	if bad != nil {
		return nil
	}
	old, _, err := t.ws.ReadFile(abs)
	if err != nil {
		return nil
	}
	if _, _, fail := planNotebookEdit(old, p); fail != nil {
		return nil
	}
	nb, err := parseNotebook(old)
	if err != nil {
		return nil
	}
	before, after, cell := "", p.NewSource, p.CellID
	mode := editMode(p)
	if i := nb.find(p.CellID); i >= 0 && mode != "insert" {
		if c, err := nb.cell(i); err == nil {
			before = multiline(c["source"])
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
	name := fmt.Sprintf("%s [%s]", displayName(t.ws, abs), cell)
	// Cut as Write's and Edit's previews are: a new source of millions of
	// lines is not diffed and shown whole.
	hunks, omitted := udiff.HunksOf(before, after, udiff.Changes(before, after), maxPatchBytes)
	return &tools.Preview{Kind: "diff", Text: renderNamedDiff(name, false, hunks, omitted)}
}

// Execute makes the change.
func (t *NotebookEdit) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var p notebookEditParams
	if err := json.Unmarshal(call.Input, &p); err != nil {
		return tools.ErrorResult("the input is not a valid NotebookEdit input (%v); send {\"notebook_path\", \"cell_id\", \"new_source\"}.", err), nil
	}
	abs, bad := resolve(t.ws, "notebook_path", p.NotebookPath)
	if bad != nil {
		return bad, nil
	}
	if !strings.EqualFold(filepath.Ext(abs), ".ipynb") {
		return tools.ErrorResult("%s is not a Jupyter notebook (.ipynb); use Edit for other files.", abs), nil
	}
	var summary string
	var cell cellFacts
	modified, err := t.ws.Modify(ctx, call.Host, workspace.Modification{
		Path: abs, Label: "NotebookEdit " + displayName(t.ws, abs), Review: call.ReviewEdits,
		Plan: func(current []byte) ([]byte, error) {
			if current == nil {
				return nil, resultError{notFound(abs)}
			}
			out, s, err := planNotebookEdit(current, p)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", abs, err)
			}
			summary, cell = s, factsOf(current, p)
			return out, nil
		},
	})
	if err != nil {
		return changeResult(err)
	}
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
