package tasks

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/toolhost/toolhost/tools"
)

// TestSchemas checks the fields (TaskStop as Claude Code's TaskStopInput,
// TaskOutput as its task_id/block/timeout) and the documented examples.
func TestSchemas(t *testing.T) {
	m := NewManager(Options{})
	defer m.Close()
	tests := []struct {
		tool     tools.Tool
		props    []string
		required []string
		invalid  string
	}{
		{NewTaskOutput(m, nil), []string{"block", "task_id", "timeout"}, []string{"task_id"}, `{"task_id":"a","timeout":700000}`},
		{NewTaskStop(m), []string{"shell_id", "task_id"}, nil, `{"task_id":3}`},
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
