package search

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

// schemaFields lists the properties and required fields of a tool's schema.
func schemaFields(t *testing.T, tool tools.Tool) (props, required []string) {
	t.Helper()
	var s struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(tool.InputSchema(), &s); err != nil || s.Type != "object" {
		t.Fatalf("%s: schema is not an object schema: %v", tool.Name(), err)
	}
	for p := range s.Properties {
		props = append(props, p)
	}
	slices.Sort(props)
	slices.Sort(s.Required)
	return props, s.Required
}

// TestSchemas checks the fields against Claude Code's published inputs
// (Glob, Grep) and the documented examples against the schemas.
func TestSchemas(t *testing.T) {
	ws := workspace.New(t.TempDir())
	tests := []struct {
		tool     tools.Tool
		props    []string
		required []string
		invalid  string
	}{
		{NewGlob(ws), []string{"path", "pattern"}, []string{"pattern"}, `{"path":"x"}`},
		{NewGrep(ws, ""), []string{"-A", "-B", "-C", "-i", "-n", "-o", "context", "glob", "head_limit", "multiline", "offset", "output_mode", "path", "pattern", "type"},
			[]string{"pattern"}, `{"pattern":"x","output_mode":"lines"}`},
		{NewLS(ws), []string{"ignore", "path"}, []string{"path"}, `{"ignore":"*.log"}`},
		{NewTree(ws), []string{"max_depth", "path"}, nil, `{"max_depth":0}`},
	}
	v := tools.NewValidator()
	for _, tc := range tests {
		t.Run(tc.tool.Name(), func(t *testing.T) {
			props, required := schemaFields(t, tc.tool)
			if !slices.Equal(props, tc.props) || !slices.Equal(required, tc.required) {
				t.Errorf("properties %v required %v", props, required)
			}
			docs := tc.tool.(tools.Documented).Docs()
			if docs.Short == "" || docs.Long == "" || len(docs.Examples) == 0 {
				t.Errorf("incomplete docs %+v", docs)
			}
			for _, ex := range docs.Examples {
				if p, err := v.Problems(tc.tool, ex.Input, nil); err != nil || len(p) > 0 {
					t.Errorf("example %q: %v %v", ex.Title, p, err)
				}
			}
			if p, _ := v.Problems(tc.tool, []byte(tc.invalid), nil); len(p) == 0 {
				t.Errorf("%s passed validation", tc.invalid)
			}
		})
	}
}
