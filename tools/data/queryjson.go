package data

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/itchyny/gojq"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

//go:embed queryjson.md
var queryJSONDescription string

// Limits of QueryJSON.
const (
	// maxInputBytes caps the JSON a call reads (inline or from a file).
	maxInputBytes = 50 << 20
	// maxOutputChars caps the printed results; the rest is cut with a note.
	maxOutputChars = 100_000
	// maxItems caps the values and keys of a document: decoded for the
	// query, each takes some 50 bytes (an interface, a map or slice, a
	// number), so a 48 MB file of "{}," took 1.5 GB. Counted before decoding.
	maxItems = 4_000_000
)

var queryJSONSchema = tools.SchemaOf[queryJSONParams](nil)

type queryJSONParams struct {
	Query    string  `json:"query" jsonschema:"A jq query, e.g. \".items[] | select(.size > 10) | .name\". Use \".\" for the whole document."`
	JSON     *string `json:"json,omitempty" jsonschema:"The JSON text to query. Give this or file_path."`
	FilePath string  `json:"file_path,omitempty" jsonschema:"A JSON file to query, absolute or relative to the workspace root. Give this or json."`
	Compact  bool    `json:"compact,omitempty" jsonschema:"Print each result on one line without spaces (jq -c). Default false: pretty-printed."`
	Raw      bool    `json:"raw,omitempty" jsonschema:"Print string results without quotes (jq -r). Default false."`
}

// QueryJSON runs jq queries on JSON given inline or read from a file.
type QueryJSON struct {
	ws *workspace.Workspace
}

// NewQueryJSON returns the QueryJSON tool reading files of ws.
func NewQueryJSON(ws *workspace.Workspace) *QueryJSON { return &QueryJSON{ws: ws} }

func (*QueryJSON) Name() string                 { return "QueryJSON" }
func (*QueryJSON) Description() string          { return queryJSONDescription }
func (*QueryJSON) InputSchema() json.RawMessage { return queryJSONSchema.JSON() }
func (*QueryJSON) SideEffect() tools.SideEffect { return tools.SideEffectNone }

// Docs implements tools.Documented.
func (*QueryJSON) Docs() tools.Docs {
	return tools.Docs{
		Short: "jq queries on JSON given inline or read from a file (gojq).",
		Long: "The query language is jq's, run by github.com/itchyny/gojq (a complete Go implementation of jq). " +
			"Results are pretty-printed, or one per line with compact (jq -c); raw prints strings unquoted (jq -r). " +
			"The identity query `.` validates and reformats a document. A query error shows the query with a " +
			"caret under the place it went wrong; a JSON error names its line and column. The query cannot read " +
			"the environment. Output over 100,000 characters is cut with a note. A document of more than 4,000,000 " +
			"values and keys (counted before it is decoded) is refused with the advice to use jq --stream in Bash.",
		Examples: []tools.Example{
			{Title: "Names of the large items", Input: json.RawMessage(`{"json":"{\"items\":[{\"name\":\"a\",\"size\":20},{\"name\":\"b\",\"size\":5}]}","query":".items[] | select(.size > 10) | .name","raw":true}`)},
			{Title: "The scripts of package.json, one per line", Input: json.RawMessage(`{"file_path":"package.json","query":".scripts | to_entries[] | \"\\(.key): \\(.value)\"","raw":true}`)},
			{Title: "Minify a document", Input: json.RawMessage(`{"json":"{ \"a\": [1, 2] }","query":".","compact":true}`)},
		},
	}
}

// Access implements tools.AccessDescriber: the file read, if any.
func (*QueryJSON) Access(input json.RawMessage) tools.Access {
	var p queryJSONParams
	if json.Unmarshal(input, &p) != nil || p.FilePath == "" {
		return tools.Access{}
	}
	return tools.Access{ReadPaths: []string{p.FilePath}}
}

// Execute parses the query and the JSON and prints every result.
func (q *QueryJSON) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var p queryJSONParams
	if err := json.Unmarshal(call.Input, &p); err != nil {
		return tools.ErrorResult("the input is not a valid QueryJSON input (%v); send {\"query\": \".\", \"json\": \"...\"}.", err), nil
	}
	if (p.JSON == nil) == (p.FilePath == "") {
		return tools.ErrorResult("give exactly one of json (the JSON text) and file_path (a JSON file)."), nil
	}
	query, err := gojq.Parse(p.Query)
	if err != nil {
		return tools.ErrorResult("%s", describeQueryError(p.Query, err)), nil
	}
	code, err := gojq.Compile(query,
		// The query sees no environment: $ENV and env are empty, so a
		// query cannot read the user's secrets.
		gojq.WithEnvironLoader(func() []string { return nil }),
		gojq.WithInputIter(gojq.NewIter[any]()))
	if err != nil {
		return tools.ErrorResult("the query %q does not compile: %v. Check the names of functions and variables.", p.Query, err), nil
	}
	src, name, errRes := q.source(p)
	if errRes != nil {
		return errRes, nil
	}
	if n := countItems(src); n > maxItems {
		return tools.ErrorResult("%s holds more than %d JSON values and keys (about %d), more than QueryJSON loads into memory. Query it with jq in Bash (jq --stream reads it piece by piece), or give QueryJSON a part of it.", name, maxItems, n), nil
	}
	doc, err := decode(src)
	if err != nil {
		return tools.ErrorResult("%s is not valid JSON: %v.", name, err), nil
	}

	var out strings.Builder
	results, cut := 0, false
	iter := code.RunWithContext(ctx, doc)
	for {
		v, ok := iter.Next()
		if !ok {
			break
		}
		if err, isErr := v.(error); isErr {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			var halt *gojq.HaltError
			if errors.As(err, &halt) && halt.Value() == nil {
				break
			}
			return tools.ErrorResult("the query failed after %d result(s): %v.", results, err), nil
		}
		results++
		text, err := format(v, p.Compact, p.Raw)
		if err != nil {
			return tools.ErrorResult("result %d cannot be printed as JSON: %v.", results, err), nil
		}
		if out.Len()+len(text) > maxOutputChars {
			cut = true
			break
		}
		out.WriteString(text)
		out.WriteByte('\n')
	}
	text := strings.TrimSuffix(out.String(), "\n")
	switch {
	case cut:
		text += fmt.Sprintf("\n(output cut at %d characters after %d results; narrow the query, e.g. with limit(n; ...) or a select)", maxOutputChars, results)
	case results == 0:
		text = "The query produced no results."
	}
	return tools.TextResult(text), nil
}

// source is the JSON text of a call and how to name it in errors.
func (q *QueryJSON) source(p queryJSONParams) ([]byte, string, *tools.Result) {
	if p.JSON != nil {
		if len(*p.JSON) > maxInputBytes {
			return nil, "", tools.ErrorResult("json is %d bytes; at most %d are accepted. Save it to a file and query a part of it.", len(*p.JSON), maxInputBytes)
		}
		return []byte(*p.JSON), "json", nil
	}
	abs, err := q.ws.Resolve(p.FilePath)
	if err != nil {
		return nil, "", tools.ErrorResult("%v", err)
	}
	st, err := os.Stat(abs)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if _, _, open := q.ws.Document(abs); !open {
			return nil, "", tools.ErrorResult("%s does not exist; check the path with Glob.", abs)
		}
	case err != nil:
		return nil, "", tools.ErrorResult("cannot read %s: %v.", abs, err)
	case st.IsDir():
		return nil, "", tools.ErrorResult("%s is a folder, not a JSON file.", abs)
	case st.Size() > maxInputBytes:
		return nil, "", tools.ErrorResult("%s is %d bytes; QueryJSON reads files up to %d bytes.", abs, st.Size(), maxInputBytes)
	}
	data, _, err := q.ws.ReadFile(abs)
	if err != nil {
		return nil, "", tools.ErrorResult("cannot read %s: %v.", abs, err)
	}
	return data, abs, nil
}

// decode parses one JSON document, keeping numbers exact (gojq works on
// json.Number). Trailing data after the document is an error.
func decode(src []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, locate(src, dec.InputOffset(), err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, locate(src, dec.InputOffset(), errors.New("more data after the first JSON value (give one document, or an array of them)"))
	}
	return v, nil
}

// countItems estimates the values and keys of a JSON text without
// decoding it: the commas, colons and opening brackets outside strings
// (one per element or member after the first, one per key, one per
// container).
func countItems(src []byte) int {
	n := 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '"':
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case ',', ':', '[', '{':
			n++
		}
	}
	return n
}

// locate adds the line and column of a decoding error.
func locate(src []byte, fallback int64, err error) error {
	off := fallback
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	if off > int64(len(src)) {
		off = int64(len(src))
	}
	before := src[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - (bytes.LastIndexByte(before, '\n') + 1)
	if col < 1 {
		col = 1
	}
	return fmt.Errorf("line %d, column %d: %w", line, col, err)
}

// describeQueryError shows the query with a caret under the place gojq
// stopped reading it.
func describeQueryError(query string, err error) string {
	var pe *gojq.ParseError
	if !errors.As(err, &pe) {
		return fmt.Sprintf("the query %q is not valid jq: %v.", query, err)
	}
	off := pe.Offset - len(pe.Token)
	if off < 0 || off > len(query) {
		off = len(query)
	}
	// Only the query's line holding the error is shown.
	start := strings.LastIndexByte(query[:off], '\n') + 1
	end := len(query)
	if i := strings.IndexByte(query[off:], '\n'); i >= 0 {
		end = off + i
	}
	line := strings.Count(query[:off], "\n") + 1
	caret := strings.Repeat(" ", len([]rune(query[start:off]))) + "^"
	return fmt.Sprintf("the query is not valid jq: %v at line %d, column %d:\n    %s\n    %s\nFix the query there (jq syntax: .key, .[0], .[] | select(...), map(...)).",
		pe, line, off-start+1, query[start:end], caret)
}

// format prints one result as jq would: pretty (two spaces) or compact;
// with raw, a string is printed as it is.
func format(v any, compact, raw bool) (string, error) {
	if s, ok := v.(string); ok && raw {
		return s, nil
	}
	b, err := gojq.Marshal(v)
	if err != nil {
		return "", err
	}
	if compact {
		return string(b), nil
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, "", "  "); err != nil {
		return string(b), nil
	}
	return buf.String(), nil
}
