package data

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

func runQuery(t *testing.T, q *QueryJSON, input string) *tools.Result {
	t.Helper()
	res, err := q.Execute(t.Context(), &tools.Call{Input: json.RawMessage(input)})
	if err != nil {
		t.Fatalf("%s: %v", input, err)
	}
	return res
}

func TestQueryJSON(t *testing.T) {
	root := t.TempDir()
	ws := workspace.New(root)
	if err := os.WriteFile(filepath.Join(root, "package.json"), []byte(`{"name":"x","scripts":{"build":"tsc","test":"jest"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("QUERYJSON_TEST_SECRET", "hunter2")
	q := NewQueryJSON(ws)
	cases := []struct {
		name      string
		input     string
		wantError bool
		want      string // whole text when wantExact, else a substring
		wantExact bool
	}{
		{"select and raw strings", `{"json":"{\"items\":[{\"name\":\"a\",\"size\":20},{\"name\":\"b\",\"size\":5},{\"name\":\"c\",\"size\":11}]}","query":".items[] | select(.size > 10) | .name","raw":true}`, false, "a\nc", true},
		{"strings quoted without raw", `{"json":"[\"a\"]","query":".[0]"}`, false, `"a"`, true},
		{"pretty by default", `{"json":"{\"a\":[1,2]}","query":"."}`, false, "{\n  \"a\": [\n    1,\n    2\n  ]\n}", true},
		{"compact", `{"json":"{ \"a\" : [1, 2] }","query":".","compact":true}`, false, `{"a":[1,2]}`, true},
		{"big integers stay exact", `{"json":"{\"id\":12345678901234567890}","query":".id"}`, false, "12345678901234567890", true},
		{"file with string interpolation", `{"file_path":"package.json","query":".scripts | to_entries[] | \"\\(.key): \\(.value)\"","raw":true}`, false, "build: tsc\ntest: jest", true},
		{"no results", `{"json":"[]","query":".[]"}`, false, "The query produced no results.", true},
		{"environment is hidden", `{"json":"null","query":"$ENV.QUERYJSON_TEST_SECRET, env.QUERYJSON_TEST_SECRET"}`, false, "null\nnull", true},
		{"query syntax error points at the place", `{"json":"{}","query":".a | select(.b == )"}`, true, "column 19:\n    .a | select(.b == )\n                      ^", false},
		{"runtime error", `{"json":"{\"a\":\"x\"}","query":".a + 1"}`, true, "the query failed after 0 result(s)", false},
		{"unknown function", `{"json":"{}","query":"frobnicate(.)"}`, true, "does not compile", false},
		{"bad JSON names line and column", `{"json":"{\n  \"a\": 1,\n  \"b\": }","query":"."}`, true, "line 3, column", false},
		{"trailing data", `{"json":"{} {}","query":"."}`, true, "more data after the first JSON value", false},
		{"both sources", `{"json":"{}","file_path":"package.json","query":"."}`, true, "exactly one of json", false},
		{"no source", `{"query":"."}`, true, "exactly one of json", false},
		{"missing file", `{"file_path":"nope.json","query":"."}`, true, "does not exist", false},
		{"folder", `{"file_path":"dir","query":"."}`, true, "is a folder", false},
		{"halt stops quietly", `{"json":"[1,2,3]","query":".[] | if . == 2 then halt else . end"}`, false, "1", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := runQuery(t, q, tc.input)
			text := res.Text()
			if res.IsError != tc.wantError {
				t.Fatalf("IsError = %v, want %v: %s", res.IsError, tc.wantError, text)
			}
			if tc.wantExact && text != tc.want || !tc.wantExact && !strings.Contains(text, tc.want) {
				t.Errorf("got:\n%s\nwant (exact=%v):\n%s", text, tc.wantExact, tc.want)
			}
		})
	}
}

func TestQueryJSONReadsTheEditorsBuffer(t *testing.T) {
	root := t.TempDir()
	ws := workspace.New(root)
	path := filepath.Join(root, "a.json")
	if err := os.WriteFile(path, []byte(`{"v":"disk"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ws.Open(workspace.PathToURI(path), "json", 1, `{"v":"buffer"}`); err != nil {
		t.Fatal(err)
	}
	res := runQuery(t, NewQueryJSON(ws), `{"file_path":"a.json","query":".v","raw":true}`)
	if got := res.Text(); got != "buffer" {
		t.Errorf("got %q, want the unsaved buffer's value", got)
	}
}

func TestQueryJSONCapsOutput(t *testing.T) {
	res := runQuery(t, NewQueryJSON(workspace.New(t.TempDir())), `{"json":"null","query":"range(200000)","compact":true}`)
	text := res.Text()
	if res.IsError || len(text) > maxOutputChars+200 || !strings.Contains(text, "output cut at 100000 characters") {
		t.Errorf("len %d, tail %q", len(text), text[max(0, len(text)-150):])
	}
}
