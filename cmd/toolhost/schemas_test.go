package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/tools"
)

// schemasFile is where the tools' generated input schemas are kept.
var schemasFile = filepath.Join("..", "..", "tools", "schemas.json")

// TestGeneratedSchemasAreCurrent regenerates every tool's input schema from
// its struct and holds tools/schemas.json, which the binary reads instead
// of generating at run time, to the result. TOOLHOST_UPDATE_SCHEMAS=1
// rewrites the file (make docs does).
func TestGeneratedSchemasAreCurrent(t *testing.T) {
	generated := map[string]json.RawMessage{}
	for _, s := range tools.AllSchemas() {
		raw, err := s.Generate()
		if err != nil {
			t.Errorf("schema %s: %v", s.Key, err)
			continue
		}
		generated[s.Key] = raw
	}
	if len(generated) < 40 {
		t.Fatalf("only %d schemas were registered; the tool packages should all be linked in", len(generated))
	}
	keys := make([]string, 0, len(generated))
	for k := range generated {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString("{\n")
	for i, k := range keys {
		key, _ := json.Marshal(k)
		b.WriteString("  " + string(key) + ": " + string(generated[k]))
		if i < len(keys)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	want := b.String()
	if os.Getenv("TOOLHOST_UPDATE_SCHEMAS") == "1" {
		if err := os.WriteFile(schemasFile, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(schemasFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("tools/schemas.json is not what the params structs generate: run make docs")
	}
}
