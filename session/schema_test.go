package session

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/engine"
)

// objectSchema is the part of a tool's input schema compared with its
// params struct.
type objectSchema struct {
	Type       string                     `json:"type"`
	Properties map[string]json.RawMessage `json:"properties"`
	Required   []string                   `json:"required"`
}

// Every tool of a session has an object schema that compiles (generated
// from the struct its input decodes into, so the two cannot drift), and
// every documented example passes it. One test for the registry instead of
// one per tool family, so a new tool is covered by registering it.
func TestToolSchemasCompileAndTakeTheirExamples(t *testing.T) {
	s, _ := newTestSession(t, "")
	v := engine.NewValidator()
	entries := s.Registry.Entries(true)
	if len(entries) < 20 {
		t.Fatalf("only %d tools registered", len(entries))
	}
	for _, e := range entries {
		tool := e.Tool
		t.Run(tool.Name(), func(t *testing.T) {
			var schema objectSchema
			if err := json.Unmarshal(tool.InputSchema(), &schema); err != nil || schema.Type != "object" {
				t.Fatalf("the input schema is not an object schema: %v", err)
			}
			if _, err := v.Problems(tool, json.RawMessage(`{}`), nil); err != nil {
				t.Fatalf("the input schema does not compile: %v", err)
			}
			docs, ok := tool.(tools.Documented)
			if !ok {
				return
			}
			d := docs.Docs()
			if d.Short == "" || len(d.Examples) == 0 {
				t.Errorf("no summary or no examples")
			}
			for _, ex := range d.Examples {
				if p, err := v.Problems(tool, ex.Input, nil); err != nil || len(p) > 0 {
					t.Errorf("example %q fails the schema: %v %v", ex.Title, p, err)
				}
			}
		})
	}
}

// The fields of the tools only toolhost has, and the schemas refuse what
// the tools cannot take. The tools Claude Code also has are compared with
// its own schemas, exactly, by test/mcp's parity test (schemas.mjs), which
// is the one place that decides them.
func TestToolhostOnlyInputFields(t *testing.T) {
	s, _ := newTestSession(t, "")
	v := engine.NewValidator()
	tests := []struct {
		tool     string
		props    []string
		required []string
		invalid  string
	}{
		{"TaskOutput", []string{"block", "task_id", "timeout"}, []string{"task_id"}, `{"task_id":"a","timeout":700000}`},
		{"LS", []string{"ignore", "path"}, []string{"path"}, `{"ignore":"*.log"}`},
		{"Tree", []string{"max_depth", "path"}, nil, `{"max_depth":0}`},
		{"SSHBash", []string{"command", "host", "timeout"}, []string{"command", "host"}, `{"command":"ls"}`},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			e, ok := s.Registry.Lookup(tt.tool)
			if !ok {
				t.Fatalf("no tool %s", tt.tool)
			}
			var schema objectSchema
			if err := json.Unmarshal(e.Tool.InputSchema(), &schema); err != nil {
				t.Fatal(err)
			}
			required := slices.Clone(schema.Required)
			slices.Sort(required)
			if got := slices.Sorted(maps.Keys(schema.Properties)); !slices.Equal(got, tt.props) || !slices.Equal(required, tt.required) {
				t.Errorf("properties %v required %v, want %v and %v", got, required, tt.props, tt.required)
			}
			if p, _ := v.Problems(e.Tool, []byte(tt.invalid), nil); len(p) == 0 {
				t.Errorf("%s passed validation", tt.invalid)
			}
		})
	}
}
