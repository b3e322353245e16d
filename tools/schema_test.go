package tools

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

type schemaItem struct {
	Name string   `json:"name" schema:"minLength=1"`
	Tags []string `json:"tags,omitempty" schema:"maxItems=3,items.pattern=^[a-z,]+$"`
}

type schemaParams struct {
	Path    string            `json:"path" jsonschema:"Where to act."`
	Limit   int               `json:"limit,omitempty" schema:"minimum=1,maximum=10,default=5"`
	Timeout *float64          `json:"timeout,omitempty" schema:"type=number,minimum=0"`
	Mode    string            `json:"mode,omitempty" schema:"enum=a|b"`
	Items   []schemaItem      `json:"items,omitempty" schema:"minItems=1"`
	Headers map[string]string `json:"headers,omitempty"`
	Value   json.RawMessage   `json:"value,omitempty" schema:"type=string|boolean"`
	Meta    map[string]any    `json:"meta,omitempty" schema:"additionalProperties=true"`
	URL     string            `json:"url,omitempty" schema:"format=uri"`
	Name    string            `json:"name,omitempty" schema:"maxLength=64,pattern=^[a-z]{1,3}$"`
}

// The schema comes from the struct: names and required from json tags,
// descriptions from jsonschema tags, constraints from schema tags, plain
// types for nullable Go types, in field order; "$schema" names the dialect.
func TestSchemaOf(t *testing.T) {
	tests := []struct {
		name string
		got  json.RawMessage
		want string
	}{
		{"tags", SchemaOf[schemaParams](nil).JSON(), `{"type":"object","properties":{` +
			`"path":{"type":"string","description":"Where to act."},` +
			`"limit":{"type":"integer","default":5,"minimum":1,"maximum":10},` +
			`"timeout":{"type":"number","minimum":0},` +
			`"mode":{"type":"string","enum":["a","b"]},` +
			`"items":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string","minLength":1},"tags":{"type":"array","items":{"type":"string","pattern":"^[a-z,]+$"},"maxItems":3}},"required":["name"],"additionalProperties":false},"minItems":1},` +
			`"headers":{"type":"object","additionalProperties":{"type":"string"}},` +
			`"value":{"type":["string","boolean"]},` +
			`"meta":{"type":"object","additionalProperties":true},` +
			`"url":{"type":"string","format":"uri"},` +
			`"name":{"type":"string","maxLength":64,"pattern":"^[a-z]{1,3}$"}` +
			`},"$schema":"https://json-schema.org/draft/2020-12/schema","required":["path"],"additionalProperties":false}`},
		{"no fields", SchemaOf[struct{}](nil).JSON(), `{"type":"object","properties":{},"$schema":"https://json-schema.org/draft/2020-12/schema","additionalProperties":false}`},
		{"omitted", SchemaOf[schemaItem](Omit("tags")).JSON(), `{"type":"object","properties":{"name":{"type":"string","minLength":1}},"$schema":"https://json-schema.org/draft/2020-12/schema","required":["name"],"additionalProperties":false}`},
		{"adjusted", SchemaOf[schemaItem](func(s *jsonschema.Schema) { s.Properties["name"].Description = "Who." }).JSON(),
			`{"type":"object","properties":{"name":{"type":"string","description":"Who.","minLength":1},"tags":{"type":"array","items":{"type":"string","pattern":"^[a-z,]+$"},"maxItems":3}},"$schema":"https://json-schema.org/draft/2020-12/schema","required":["name"],"additionalProperties":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if string(tt.got) != tt.want {
				t.Errorf("schema\n got %s\nwant %s", tt.got, tt.want)
			}
		})
	}
}

// Decode reads a validated input into the params struct.
func TestInputSchemaDecode(t *testing.T) {
	in, err := SchemaOf[schemaParams](nil).Decode(json.RawMessage(`{"path":"a","limit":3,"items":[{"name":"x"}]}`))
	if err != nil || in.Path != "a" || in.Limit != 3 || len(in.Items) != 1 || in.Items[0].Name != "x" {
		t.Fatalf("Decode = %+v, %v", in, err)
	}
}
