package fs

import (
	"strings"
	"testing"
)

// TestParseNotebookIndex states what the index of a notebook holds for
// files whose strings, escapes and layout a hand-made scanner gets wrong:
// each cell's range is its value exactly, names are compared decoded, and a
// file is one JSON value or an error.
func TestParseNotebookIndex(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		// cells are the text of each cell's range and its id (or "-" for
		// none); wantErr is part of the error when there should be one.
		cells   [][2]string
		lang    string
		wantErr string
	}{
		{name: "brackets and quotes in strings",
			doc:   `{"cells": [ {"id": "a", "source": "]}\"[{"} , {"id":"b","source":["\\", "}"]}], "nbformat": 4}`,
			cells: [][2]string{{`{"id": "a", "source": "]}\"[{"}`, "a"}, {`{"id":"b","source":["\\", "}"]}`, "b"}}},
		{name: "escaped names and ids",
			doc:   `{"c\u0065lls": [{"\u0069d": "x\u00e9\ud83d\ude00"}, {"source": "no id"}], "m\u0065tadata": {"language_info": {"n\u0061me": "r"}}}`,
			cells: [][2]string{{`{"\u0069d": "x\u00e9\ud83d\ude00"}`, "xé😀"}, {`{"source": "no id"}`, "-"}}, lang: "r"},
		{name: "invalid UTF-8 and a lone surrogate become U+FFFD",
			doc:   "{\"cells\": [{\"id\": \"a\xffb\"}, {\"id\": \"\\ud800\"}]}",
			cells: [][2]string{{"{\"id\": \"a\xffb\"}", "a\uFFFDb"}, {`{"id": "\ud800"}`, "\uFFFD"}}},
		{name: "an id that is not a string",
			doc:   `{"cells": [{"id": 7}]}`,
			cells: [][2]string{{`{"id": 7}`, ""}}},
		{name: "metadata of another kind has no language",
			doc:   `{"cells": [], "metadata": ["language_info", {"name": "r"}]}`,
			cells: [][2]string{}},
		{name: "space around the value", doc: " \n\t{\"cells\": []}\r\n ", cells: [][2]string{}},
		{name: "a second value after the notebook", doc: `{"cells": []} {"cells": []}`, wantErr: "more than one JSON value"},
		{name: "text after the notebook", doc: `{"cells": []} x`, wantErr: "JSON error"},
		{name: "an empty file", doc: ``, wantErr: "JSON error"},
		{name: "an array", doc: `[{"cells": []}]`, wantErr: "not a JSON object"},
		{name: "an unclosed string", doc: `{"cells": [{"id": "a}]}`, wantErr: "JSON error"},
		{name: "a control character in a string", doc: "{\"cells\": [{\"id\": \"a\x01\"}]}", wantErr: "JSON error"},
		{name: "a syntax error after the cells", doc: `{"cells": [1], "metadata": {,}}`, wantErr: "JSON error"},
		{name: "cells not a list", doc: `{"cells": {"0": {}}}`, wantErr: `no "cells" list`},
		{name: "a cell not an object", doc: `{"cells": [{}, "x"]}`, wantErr: "cell 1 is not an object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nb, err := parseNotebook([]byte(tc.doc))
			if err != nil || tc.wantErr != "" {
				if err == nil || tc.wantErr == "" || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want an error with %q", err, tc.wantErr)
				}
				return
			}
			if len(nb.cells) != len(tc.cells) {
				t.Fatalf("%d cells, want %d", len(nb.cells), len(tc.cells))
			}
			for i, c := range nb.cells {
				id := c.id
				if !c.hasID {
					id = "-"
				}
				if got := tc.doc[c.start:c.end]; got != tc.cells[i][0] || id != tc.cells[i][1] {
					t.Errorf("cell %d = %q id %q, want %q id %q", i, got, id, tc.cells[i][0], tc.cells[i][1])
				}
			}
			if lang := nb.language(); lang != tc.lang {
				t.Errorf("language = %q, want %q", lang, tc.lang)
			}
		})
	}
}
