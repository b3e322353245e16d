package shell

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

// TestSchemas checks Bash's fields against Claude Code's BashInput, and
// the documented examples against the schemas.
func TestSchemas(t *testing.T) {
	tests := []struct {
		tool     tools.Tool
		props    []string
		required []string
		invalid  string
	}{
		{NewBash(workspace.New(t.TempDir()), nil, nil, nil),
			[]string{"command", "dangerouslyDisableSandbox", "description", "run_in_background", "timeout"}, []string{"command"}, `{"command":"ls","timeout":"soon"}`},
		{NewSSHBash(nil), []string{"command", "host", "timeout"}, []string{"command", "host"}, `{"command":"ls"}`},
	}
	v := tools.NewValidator()
	for _, tc := range tests {
		t.Run(tc.tool.Name(), func(t *testing.T) {
			var s struct {
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			}
			if err := json.Unmarshal(tc.tool.InputSchema(), &s); err != nil {
				t.Fatal(err)
			}
			var props []string
			for p := range s.Properties {
				props = append(props, p)
			}
			slices.Sort(props)
			slices.Sort(s.Required)
			if !slices.Equal(props, tc.props) || !slices.Equal(s.Required, tc.required) {
				t.Errorf("properties %v required %v", props, s.Required)
			}
			for _, ex := range tc.tool.(tools.Documented).Docs().Examples {
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
