package engine

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/tools"
)

// TestLargeInputValidatesAsSmall: an input past largeInput, whose strings
// the schema places no constraint on are skipped rather than decoded, gets
// the same problems as the whole decode finds, for schemas that allow the
// skip and schemas that do not.
func TestLargeInputValidatesAsSmall(t *testing.T) {
	big := strings.Repeat("line of text\n", largeInput/10)
	str := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	schemas := map[string]string{
		"plain":     `{"type":"object","properties":{"file_path":{"type":"string","description":"d"},"content":{"type":"string"}},"required":["file_path","content"],"additionalProperties":false}`,
		"maxLength": `{"type":"object","properties":{"file_path":{"type":"string"},"content":{"type":"string","maxLength":10}},"required":["file_path","content"]}`,
		"pattern":   `{"type":"object","properties":{"file_path":{"type":"string"},"content":{"type":"string","pattern":"^x"}},"required":["file_path","content"]}`,
		"allOf":     `{"type":"object","properties":{"file_path":{"type":"string"},"content":{"type":"string"}},"allOf":[{"properties":{"content":{"maxLength":10}}}]}`,
	}
	inputs := map[string]string{
		"valid":            `{"file_path":"/a","content":` + str(big) + `}`,
		"content a number": `{"file_path":"/a","content":7,"pad":` + str(big) + `}`,
		"path missing":     `{"content":` + str(big) + `}`,
		"path a number":    `{"file_path":1,"content":` + str(big) + `}`,
		"extra field":      `{"file_path":"/a","content":` + str(big) + `,"x":1}`,
		"duplicate key":    `{"file_path":"/a","content":5,"content":` + str(big) + `}`,
		"not JSON":         `{"file_path":"/a","content":` + str(big) + `,}`,
		"an array":         `[` + str(big) + `]`,
	}
	for sname, schema := range schemas {
		tool := &fakeTool{name: "T", schema: schema}
		v := NewValidator()
		c, err := v.compiledFor(tool, nil)
		if err != nil {
			t.Fatal(err)
		}
		if sname == "plain" {
			// The skip is taken: the content stands in as "".
			doc, err := c.instance([]byte(inputs["valid"]))
			if m, ok := doc.(map[string]any); err != nil || !ok || m["content"] != "" || len(m) != 2 {
				t.Fatalf("the plain schema's large input decoded as %.80v (%v)", doc, err)
			}
		}
		for iname, input := range inputs {
			got, err := v.Problems(tool, []byte(input), nil)
			if err != nil {
				t.Fatal(err)
			}
			// What the whole decode finds.
			var want []string
			c.anyString = nil
			want, _ = v.Problems(tool, []byte(input), nil)
			c.anyString = anyStringProperties([]byte(schema))
			if !slices.Equal(got, want) {
				t.Errorf("%s schema, %s: problems %q, want %q", sname, iname, got, want)
			}
		}
	}
}

// TestAnyStringProperties: only strings whose subschema has nothing but
// "type" and annotations, in a schema without other constraining keywords.
func TestAnyStringProperties(t *testing.T) {
	tests := []struct {
		schema string
		want   []string
	}{
		{`{"type":"object","properties":{"a":{"type":"string","description":"x"},"b":{"type":"integer"},"c":{"type":"string","minLength":1},"d":{"type":["string","null"]}}}`, []string{"a"}},
		{`{"type":"object","properties":{"a":{"type":"string"}},"anyOf":[{"required":["a"]}]}`, nil},
		{`{"type":"object","properties":{"a":{"type":"string"}},"$ref":"#/x"}`, nil},
		{`{"properties":{"a":{"type":"string"}}}`, nil},
		{`{"type":"object","properties":{"a":{"type":"string","enum":["x"]},"b":{"type":"string","format":"uri"}}}`, nil},
	}
	for _, tt := range tests {
		var got []string
		for k := range anyStringProperties([]byte(tt.schema)) {
			got = append(got, k)
		}
		slices.Sort(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.schema, got, tt.want)
		}
	}
}

// badTag and unknownKey are structs whose schema tags are wrong.
type badTag struct {
	Path string `json:"path" schema:"minimum"`
}

type unknownKey struct {
	Path string `json:"path" schema:"const=x"`
}

// A struct the tags describe wrongly is the tool's fault: the validator
// reports its schema as broken, naming the field, and nothing panics.
func TestSchemaOfBrokenTags(t *testing.T) {
	tests := []struct {
		name   string
		schema interface {
			JSON() json.RawMessage
			Err() error
		}
		want string
	}{
		{"no value", tools.SchemaOf[badTag](nil), "field path: schema tag \"minimum\": want key=value"},
		{"unknown key", tools.SchemaOf[unknownKey](nil), "unknown key \"const\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.schema.Err(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Err() = %v, want it to contain %q", err, tt.want)
			}
			tool := &fakeTool{name: "Broken", schema: string(tt.schema.JSON())}
			_, err := NewValidator().Problems(tool, json.RawMessage(`{}`), nil)
			var serr *SchemaError
			if !errors.As(err, &serr) {
				t.Fatalf("validation error = %v, want a SchemaError", err)
			}
		})
	}
}
