package session

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/tools"
)

// objectSchema is the part of a tool's input schema compared with its
// params struct.
type objectSchema struct {
	Type       string                     `json:"type"`
	Properties map[string]json.RawMessage `json:"properties"`
	Required   []string                   `json:"required"`
}

// propertyTypes reads a property's "type": one name or a list.
func propertyTypes(raw json.RawMessage) []string {
	var p struct {
		Type json.RawMessage `json:"type"`
	}
	if json.Unmarshal(raw, &p) != nil || len(p.Type) == 0 {
		return nil
	}
	var one string
	if json.Unmarshal(p.Type, &one) == nil {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(p.Type, &many)
	return many
}

// jsonTypes are the JSON Schema types a Go type decodes from; nil accepts
// any (json.RawMessage, interfaces).
func jsonTypes(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeOf(json.RawMessage(nil)) || t.Kind() == reflect.Interface {
		return nil
	}
	switch t.Kind() {
	case reflect.String:
		return []string{"string"}
	case reflect.Bool:
		return []string{"boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return []string{"integer"}
	case reflect.Float32, reflect.Float64:
		return []string{"number", "integer"}
	case reflect.Slice, reflect.Array:
		return []string{"array"}
	case reflect.Struct, reflect.Map:
		return []string{"object"}
	}
	return []string{"?" + t.Kind().String()}
}

// jsonFields are a struct's fields by JSON name, embedded structs flattened.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		if f.Anonymous && name == "" {
			for k, v := range jsonFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// Every tool of a session: its input schema and the struct it decodes the
// input into name the same fields with the same types, every required field
// exists, and every documented example passes the schema and decodes into
// the struct without unknown fields. One test for the registry instead of
// one per tool family, so a new tool is covered by registering it.
func TestToolSchemasMatchTheirParams(t *testing.T) {
	s, _ := newTestSession(t, "")
	v := tools.NewValidator()
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
			typed, ok := tool.(tools.TypedInput)
			if !ok {
				t.Fatalf("%s does not say what its input decodes into (tools.TypedInput)", tool.Name())
			}
			fields := jsonFields(reflect.TypeOf(typed.NewInput()))
			props, names := schema.Properties, slices.Sorted(maps.Keys(fields))
			if got := slices.Sorted(maps.Keys(props)); !slices.Equal(got, names) {
				t.Errorf("the schema's properties %v differ from the params' fields %v", got, names)
			}
			for _, name := range names {
				raw, ok := props[name]
				if !ok {
					continue
				}
				want, got := jsonTypes(fields[name]), propertyTypes(raw)
				if want == nil || got == nil {
					continue
				}
				if !slices.ContainsFunc(got, func(g string) bool { return slices.Contains(want, g) }) {
					t.Errorf("%s: the schema says %v, the params field is %s", name, got, fields[name])
				}
			}
			for _, r := range schema.Required {
				if _, ok := fields[r]; !ok {
					t.Errorf("required %q is not a field of the params", r)
				}
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
				dec := json.NewDecoder(bytes.NewReader(ex.Input))
				dec.DisallowUnknownFields()
				if err := dec.Decode(typed.NewInput()); err != nil {
					t.Errorf("example %q does not decode into the params: %v", ex.Title, err)
				}
			}
		})
	}
}

// The fields of the tools whose input Claude Code publishes are Claude
// Code's (sdk-tools.d.ts), and the schemas refuse what the tools cannot
// take.
func TestClaudeCodeInputFields(t *testing.T) {
	s, _ := newTestSession(t, "")
	v := tools.NewValidator()
	tests := []struct {
		tool     string
		props    []string
		required []string
		invalid  string
	}{
		{"Bash", []string{"command", "dangerouslyDisableSandbox", "description", "run_in_background", "timeout"}, []string{"command"}, `{"command":"ls","timeout":"soon"}`},
		{"Glob", []string{"path", "pattern"}, []string{"pattern"}, `{"path":"x"}`},
		{"Grep", []string{"-A", "-B", "-C", "-i", "-n", "-o", "context", "glob", "head_limit", "multiline", "offset", "output_mode", "path", "pattern", "type"},
			[]string{"pattern"}, `{"pattern":"x","output_mode":"lines"}`},
		{"TaskOutput", []string{"block", "task_id", "timeout"}, []string{"task_id"}, `{"task_id":"a","timeout":700000}`},
		{"TaskStop", []string{"shell_id", "task_id"}, nil, `{"task_id":3}`},
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
