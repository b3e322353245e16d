package fs

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/workspace/workspacetest"
)

// cells decodes a notebook file's cells for assertions.
func cells(t *testing.T, data string) []map[string]any {
	t.Helper()
	var nb struct {
		Cells []map[string]any `json:"cells"`
	}
	if err := json.Unmarshal([]byte(data), &nb); err != nil {
		t.Fatalf("the notebook is no longer valid JSON: %v", err)
	}
	return nb.Cells
}

func TestNotebookEncodeRoundTrip(t *testing.T) {
	nb, err := parseNotebook([]byte(sampleNotebook))
	if err != nil {
		t.Fatal(err)
	}
	out, err := nb.encode()
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != sampleNotebook {
		t.Errorf("an untouched notebook did not encode to the same bytes:\n%s", out)
	}
}

func TestNotebookEdit(t *testing.T) {
	tests := []struct {
		name    string
		input   map[string]any
		isError bool
		want    []string
		check   func(t *testing.T, cs []map[string]any)
	}{
		{
			name:  "replace a code cell clears its outputs, keeps its metadata",
			input: map[string]any{"cell_id": "code1", "new_source": "print(\"bye\")\n2 + 2"},
			want:  []string{"Replaced the source of code cell code1"},
			check: func(t *testing.T, cs []map[string]any) {
				c := cs[1]
				if src, _ := json.Marshal(c["source"]); string(src) != `["print(\"bye\")\n","2 + 2"]` {
					t.Errorf("source %s", src)
				}
				if outs, _ := c["outputs"].([]any); len(outs) != 0 || c["execution_count"] != nil {
					t.Errorf("outputs %v, execution_count %v: want cleared", c["outputs"], c["execution_count"])
				}
				if tags, _ := json.Marshal(c["metadata"]); string(tags) != `{"tags":["keep-me"]}` {
					t.Errorf("metadata %s, want it kept", tags)
				}
				if outs, _ := cs[2]["outputs"].([]any); len(outs) != 2 {
					t.Errorf("another cell's outputs changed: %v", cs[2]["outputs"])
				}
			},
		},
		{
			name:  "replace with a type change to markdown drops code fields",
			input: map[string]any{"cell_id": "code2", "new_source": "Now prose", "cell_type": "markdown"},
			check: func(t *testing.T, cs []map[string]any) {
				c := cs[2]
				_, hasOutputs := c["outputs"]
				_, hasCount := c["execution_count"]
				if c["cell_type"] != "markdown" || hasOutputs || hasCount {
					t.Errorf("cell %v, want a markdown cell without outputs or execution_count", c)
				}
			},
		},
		{
			name:  "insert after a cell, with a new id",
			input: map[string]any{"cell_id": "md1", "new_source": "x = 1", "cell_type": "code", "edit_mode": "insert"},
			want:  []string{"Inserted code cell", "after cell md1"},
			check: func(t *testing.T, cs []map[string]any) {
				if len(cs) != 4 {
					t.Fatalf("%d cells, want 4", len(cs))
				}
				c := cs[1]
				id, _ := c["id"].(string)
				if len(id) != 8 || c["cell_type"] != "code" || c["execution_count"] != nil {
					t.Errorf("inserted cell %v", c)
				}
				if outs, ok := c["outputs"].([]any); !ok || len(outs) != 0 {
					t.Errorf("inserted code cell needs an empty outputs list: %v", c["outputs"])
				}
			},
		},
		{
			name:  "insert at the beginning",
			input: map[string]any{"new_source": "# Top", "cell_type": "markdown", "edit_mode": "insert"},
			check: func(t *testing.T, cs []map[string]any) {
				if len(cs) != 4 || cs[0]["cell_type"] != "markdown" || cs[1]["id"] != "md1" {
					t.Errorf("cells %v", cs)
				}
			},
		},
		{
			name:  "delete",
			input: map[string]any{"cell_id": "code1", "new_source": "", "edit_mode": "delete"},
			want:  []string{"Deleted cell code1"},
			check: func(t *testing.T, cs []map[string]any) {
				if len(cs) != 2 || cs[0]["id"] != "md1" || cs[1]["id"] != "code2" {
					t.Errorf("cells %v", cs)
				}
			},
		},
		{
			name:    "unknown cell",
			input:   map[string]any{"cell_id": "nope", "new_source": "x"},
			isError: true,
			want:    []string{`no cell "nope"`, "md1, code1, code2"},
		},
		{
			name:    "insert without cell_type",
			input:   map[string]any{"new_source": "x", "edit_mode": "insert"},
			isError: true,
			want:    []string{"cell_type is required"},
		},
		{
			name:    "replace without cell_id",
			input:   map[string]any{"new_source": "x"},
			isError: true,
			want:    []string{"cell_id is required"},
		},
		{
			name:  "cell-N addresses cells by position",
			input: map[string]any{"cell_id": "cell-0", "new_source": "# New title"},
			check: func(t *testing.T, cs []map[string]any) {
				if cs[0]["id"] != "md1" || multiline(cs[0]["source"]) != "# New title" {
					t.Errorf("cell 0 %v", cs[0])
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			p := e.write("nb.ipynb", sampleNotebook, 0o644)
			e.readFile(p)
			in := map[string]any{"notebook_path": p}
			for k, v := range tt.input {
				in[k] = v
			}
			res := call(t, context.Background(), NewNotebookEdit(e.ws), nil, in)
			wantResult(t, res, tt.isError, tt.want...)
			after := e.read("nb.ipynb")
			if tt.isError {
				if after != sampleNotebook {
					t.Error("a failed NotebookEdit changed the file")
				}
				return
			}
			if !strings.HasPrefix(after, "{\n \"cells\": [\n  {\n") || !strings.HasSuffix(after, "\"nbformat_minor\": 5\n}\n") {
				t.Errorf("layout not kept (one-space indent, sorted keys, final newline):\n%s", after)
			}
			tt.check(t, cells(t, after))
		})
	}
}

func TestNotebookEditRules(t *testing.T) {
	e := newEnv(t)
	p := e.write("nb.ipynb", sampleNotebook, 0o644)
	ne := NewNotebookEdit(e.ws)
	res := call(t, context.Background(), ne, nil, map[string]any{"notebook_path": p, "cell_id": "md1", "new_source": "x"})
	wantResult(t, res, true, "Read it first")

	txt := e.write("notes.txt", "x", 0o644)
	res = call(t, context.Background(), ne, nil, map[string]any{"notebook_path": txt, "cell_id": "md1", "new_source": "x"})
	wantResult(t, res, true, "not a Jupyter notebook")

	// An old notebook without cell ids: Read shows cell-N, NotebookEdit takes it.
	old := `{"cells": [{"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], "source": ["a = 1"]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 2}`
	op := e.write("old.ipynb", old, 0o644)
	read := call(t, context.Background(), NewRead(e.ws), nil, map[string]any{"file_path": op})
	wantResult(t, read, false, `<cell id="cell-0" cell_type="code">`)
	res = call(t, context.Background(), ne, nil, map[string]any{"notebook_path": op, "new_source": "b = 2", "cell_type": "code", "edit_mode": "insert", "cell_id": "cell-0"})
	wantResult(t, res, false)
	cs := cells(t, e.read("old.ipynb"))
	if len(cs) != 2 || multiline(cs[1]["source"]) != "b = 2" {
		t.Fatalf("cells %v", cs)
	}
	if _, hasID := cs[1]["id"]; hasID {
		t.Error("an id was added to a cell of an nbformat 4.2 notebook")
	}

	// Two cells with one id: the edit names neither by guessing, and the
	// position form reaches the second.
	dup := `{"cells": [{"cell_type": "code", "id": "a", "metadata": {}, "outputs": [], "source": ["x = 1"]}, {"cell_type": "code", "id": "a", "metadata": {}, "outputs": [], "source": ["y = 2"]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`
	dp := e.write("dup.ipynb", dup, 0o644)
	e.readFile(dp)
	res = call(t, context.Background(), ne, nil, map[string]any{"notebook_path": dp, "cell_id": "a", "new_source": "z = 3"})
	wantResult(t, res, true, `the cell id "a" names 2 cells (cell-0, cell-1 by position)`)
	if e.read("dup.ipynb") != dup {
		t.Error("an ambiguous NotebookEdit changed the file")
	}
	res = call(t, context.Background(), ne, nil, map[string]any{"notebook_path": dp, "cell_id": "cell-1", "new_source": "z = 3"})
	wantResult(t, res, false)
	if cs := cells(t, e.read("dup.ipynb")); multiline(cs[0]["source"]) != "x = 1" || multiline(cs[1]["source"]) != "z = 3" {
		t.Errorf("cells %v, want the second one changed", cs)
	}
}

func TestNotebookEditThroughEditor(t *testing.T) {
	e := newEnv(t)
	p := e.write("nb.ipynb", sampleNotebook, 0o644)
	fe := workspacetest.NewFakeEditor(e.ws)
	if err := fe.Open(p, sampleNotebook); err != nil {
		t.Fatal(err)
	}
	e.readFile(p)
	res := call(t, context.Background(), NewNotebookEdit(e.ws), editorHost{ed: fe}, map[string]any{"notebook_path": p, "cell_id": "md1", "new_source": "# Renamed"})
	wantResult(t, res, false)
	buf, _, _ := fe.Buffer(p)
	if buf != e.read("nb.ipynb") || multiline(cells(t, buf)[0]["source"]) != "# Renamed" {
		t.Errorf("editor buffer and disk disagree or lack the change:\n%s", buf)
	}
	calls := fe.Calls()
	if len(calls) != 1 || len(calls[0].Edit.DocumentChanges[0].TextDocumentEdit.Edits) > 2 {
		t.Errorf("want one applyEdit with small edits, got %+v", calls)
	}
}

// A notebook written by another tool (two-space indent, keys out of order,
// a source as one string): an edit changes the bytes of its cell only.
func TestNotebookEditKeepsTheFileFormatting(t *testing.T) {
	const (
		first  = "{\n   \"source\": \"x = 1\",\n   \"cell_type\": \"code\", \"metadata\": {}, \"outputs\": [], \"execution_count\": null, \"id\": \"a\"\n  }"
		second = "{\"id\": \"b\", \"cell_type\": \"markdown\", \"metadata\": {}, \"source\": [\"# Title\\n\"]}"
		third  = "{\"id\": \"c\", \"cell_type\": \"code\", \"metadata\": {\"tags\": [\"keep\"]}, \"source\": [], \"outputs\": [], \"execution_count\": 3}"
		head   = "{\n  \"nbformat_minor\": 5,\n  \"cells\": [\n  "
		tail   = "\n  ],\n  \"metadata\": {\"kernelspec\": {\"name\": \"python3\"}},\n  \"nbformat\": 4\n}\n"
	)
	doc := head + first + ",\n  " + second + ",\n  " + third + tail
	tests := []struct {
		name  string
		p     notebookEditParams
		keeps []string // original pieces that must be in the output byte for byte
		drops string   // an original piece that must be gone
	}{
		{"replace", notebookEditParams{CellID: "b", NewSource: "# New title\n"}, []string{head + first + ",\n  ", ",\n  " + third + tail}, second},
		{"delete", notebookEditParams{CellID: "b", EditMode: "delete"}, []string{head + first + ",\n  " + third + tail}, second},
		{"insert", notebookEditParams{CellID: "a", EditMode: "insert", CellType: "code", NewSource: "y = 2"}, []string{head + first + ",\n  ", second + ",\n  " + third + tail}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := planNotebookEdit([]byte(doc), tt.p)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range tt.keeps {
				if !strings.Contains(string(out), k) {
					t.Errorf("the output lost the original bytes %q:\n%s", k, out)
				}
			}
			if tt.drops != "" && strings.Contains(string(out), tt.drops) {
				t.Errorf("the output still has %q", tt.drops)
			}
			if _, err := parseNotebook(out); err != nil {
				t.Errorf("the output is not a notebook: %v\n%s", err, out)
			}
		})
	}
}

// The permission prompt shows the cell's source change, not the JSON.
func TestNotebookEditPreviewShowsTheCell(t *testing.T) {
	e := newEnv(t)
	p := e.write("n.ipynb", "{\n \"cells\": [\n  {\"cell_type\": \"code\", \"id\": \"a\", \"metadata\": {}, \"outputs\": [], \"execution_count\": null, \"source\": [\"x = 1\\n\", \"print(x)\"]}\n ],\n \"metadata\": {},\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n", 0o644)
	pv := NewNotebookEdit(e.ws).Preview(context.Background(), []byte(`{"notebook_path":`+quoteJSON(p)+`,"cell_id":"a","new_source":"x = 2\nprint(x)"}`))
	if pv == nil || pv.Kind != "diff" {
		t.Fatalf("Preview = %+v", pv)
	}
	for _, want := range []string{"n.ipynb [a]", "-x = 1\n", "+x = 2\n"} {
		if !strings.Contains(pv.Text, want) {
			t.Errorf("preview lacks %q:\n%s", want, pv.Text)
		}
	}
	if strings.Contains(pv.Text, "cell_type") || strings.Contains(pv.Text, "\"source\"") {
		t.Errorf("preview shows the notebook's JSON:\n%s", pv.Text)
	}
}

// TestNotebookEditStructured states the fields of Claude Code's
// NotebookEditOutput: a replace without cell_type reports the cell's own
// type, with its old source, the language and the file before and after.
func TestNotebookEditStructured(t *testing.T) {
	e := newEnv(t)
	p := e.write("nb.ipynb", sampleNotebook, 0o644)
	e.readFile(p)
	res := call(t, context.Background(), NewNotebookEdit(e.ws), nil, map[string]any{"notebook_path": p, "cell_id": "code1", "new_source": "pass"})
	wantResult(t, res, false)
	st := res.Structured.(map[string]any)
	if st["cell_type"] != "code" || st["language"] != "python" || st["old_source"] != "print(\"hi\")\n1 + 1" ||
		st["original_file"] != sampleNotebook || st["updated_file"] != e.read("nb.ipynb") || st["edit_mode"] != "replace" {
		t.Errorf("structured = cell_type %v, language %v, old_source %q, edit_mode %v, files given %v/%v",
			st["cell_type"], st["language"], st["old_source"], st["edit_mode"], st["original_file"] == sampleNotebook, st["updated_file"] == e.read("nb.ipynb"))
	}
}

// A notebook of more cells than any real one (a hostile file of empty
// cells) is refused with what to use instead, before its index is built.
func TestNotebookTooManyCells(t *testing.T) {
	doc := `{"cells": [` + strings.Repeat(`{},`, maxNotebookCells) + `{}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`
	_, _, err := planNotebookEdit([]byte(doc), notebookEditParams{CellID: "cell-0", NewSource: "x"})
	if err == nil || !strings.Contains(err.Error(), "more than 1000000 cells") || !strings.Contains(err.Error(), "jq") {
		t.Fatalf("err = %v, want the cell cap with what to do instead", err)
	}
}

// A repeated "cells" key: the last one is the notebook's (as a JSON decoder
// reads it), and the edit rewrites the file rather than splicing the bytes
// of the first list, which is not the one edited.
func TestNotebookRepeatedCellsKey(t *testing.T) {
	doc := `{"cells": [{"cell_type": "code", "id": "a", "metadata": {}, "outputs": [], "execution_count": null, "source": "old"}, {"cell_type": "code", "id": "a2", "metadata": {}, "outputs": [], "execution_count": null, "source": "old"}], "cells": [{"cell_type": "markdown", "id": "b", "metadata": {}, "source": "kept"}, {"cell_type": "markdown", "id": "c", "metadata": {}, "source": "x"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`
	out, _, err := planNotebookEdit([]byte(doc), notebookEditParams{CellID: "c", NewSource: "new"})
	if err != nil {
		t.Fatal(err)
	}
	cs := cells(t, string(out))
	if strings.Count(string(out), `"cells"`) != 1 || len(cs) != 2 || multiline(cs[0]["source"]) != "kept" || multiline(cs[1]["source"]) != "new" {
		t.Errorf("out = %s", out)
	}
}

// A notebook over 1 MiB is not echoed whole in the structured result, as
// Edit and Write do not echo a big file.
func TestNotebookEditStructuredOmitsABigFile(t *testing.T) {
	e := newEnv(t)
	p := e.write("big.ipynb", bigNotebook(2<<20), 0o644)
	e.readFile(p)
	res := call(t, context.Background(), NewNotebookEdit(e.ws), nil, map[string]any{"notebook_path": p, "cell_id": "c0000003", "new_source": "pass"})
	wantResult(t, res, false)
	st := res.Structured.(map[string]any)
	_, hasOld := st["original_file"]
	_, hasNew := st["updated_file"]
	if hasOld || hasNew || st["original_fileOmitted"] != true || st["updated_fileOmitted"] != true || st["old_source"] == nil {
		t.Errorf("structured keys: original_file %v, updated_file %v, omitted %v/%v", hasOld, hasNew, st["original_fileOmitted"], st["updated_fileOmitted"])
	}
}

// A new source of more lines than a cell may hold is refused before the
// notebook is laid out, with what to do instead; one at the cap is written.
func TestNotebookEditLineCap(t *testing.T) {
	for _, tc := range []struct {
		lines   int
		wantErr bool
	}{{maxCellLines, false}, {maxCellLines + 1, true}} {
		src := strings.Repeat("\n", tc.lines-1)
		out, _, err := planNotebookEdit([]byte(sampleNotebook), notebookEditParams{CellID: "code1", NewSource: src})
		switch {
		case tc.wantErr && (err == nil || !strings.Contains(err.Error(), "more than the 1000000 a cell may hold") || !strings.Contains(err.Error(), "a file the cell reads")):
			t.Errorf("%d lines: err = %v, want the line cap", tc.lines, err)
		case !tc.wantErr && (err != nil || len(cells(t, string(out))[1]["source"].([]any)) != tc.lines-1):
			t.Errorf("%d lines: err = %v", tc.lines, err)
		}
	}
}

// The permission prompt's diff of a long new source is cut as Write's is,
// and says how long the whole diff is.
func TestNotebookEditPreviewIsCut(t *testing.T) {
	e := newEnv(t)
	p := e.write("nb.ipynb", sampleNotebook, 0o644)
	input, _ := json.Marshal(map[string]any{"notebook_path": p, "cell_id": "code1", "new_source": strings.Repeat("row = 1\n", 100_000)})
	pv := NewNotebookEdit(e.ws).Preview(context.Background(), input)
	if pv == nil || len(pv.Text) > maxDiffChars+200 || !strings.Contains(pv.Text, "[diff cut at ") || !strings.Contains(pv.Text, "nb.ipynb [code1]") {
		t.Fatalf("preview of %d characters, want at most about %d with the cut noted", len(pv.Text), maxDiffChars)
	}
}

// A big notebook whose edit would need the whole-file rewrite (a repeated
// "cells" key) is refused rather than decoded whole.
func TestNotebookRewriteIsCapped(t *testing.T) {
	pad := strings.Repeat("x", maxRewriteBytes)
	doc := `{"cells": [], "cells": [{"cell_type": "markdown", "id": "a", "metadata": {}, "source": "x"}], "metadata": {"pad": "` + pad + `"}, "nbformat": 4, "nbformat_minor": 5}`
	_, _, err := planNotebookEdit([]byte(doc), notebookEditParams{CellID: "a", NewSource: "y"})
	if err == nil || !strings.Contains(err.Error(), "rewritten whole") || !strings.Contains(err.Error(), "jq") {
		t.Fatalf("err = %v, want the rewrite cap", err)
	}
}
