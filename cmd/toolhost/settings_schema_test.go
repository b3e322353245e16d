package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
)

// settingsSchemaFile is the settings files' JSON schema, which VS Code
// applies to .toolhost/settings.json (package.json's jsonValidation).
var settingsSchemaFile = filepath.Join("..", "..", "editor-client", "vscode", "schemas", "settings.schema.json")

// settingsSchema generates the settings files' schema from the Settings
// type: its json tags name the keys, its jsonschema tags describe them and
// its schema tags constrain them, as for the tools' inputs (tools.SchemaOf).
// jsonschema-go writes draft 2020-12 ($defs); VS Code reads it, and the
// extension's test compiles it with Ajv's 2020 mode.
func settingsSchema() ([]byte, error) {
	s := tools.SchemaOf[settings.Settings](func(s *jsonschema.Schema) {
		s.Schema = "https://json-schema.org/draft/2020-12/schema"
		s.ID = "https://github.com/toolhost/toolhost/editor-client/vscode/schemas/settings.schema.json"
		s.Title = "toolhost settings"
		s.Description = "Settings of toolhost: ~/.config/toolhost/settings.json, <root>/.toolhost/settings.json and <root>/.toolhost/settings.local.json (later files override earlier ones). Generated from the Go type settings.Settings by make docs."
		// A file may name its schema.
		s.Properties["$schema"] = &jsonschema.Schema{Type: "string"}
		// Hooks is a map by event; the events toolhost runs are named,
		// so that an editor completes them.
		hooks := s.Properties["hooks"]
		hooks.Properties = map[string]*jsonschema.Schema{}
		for event, desc := range map[string]string{
			"PreToolUse":         "Before a call: may block it, rewrite its input or add context.",
			"PostToolUse":        "After a call that succeeded.",
			"PostToolUseFailure": "After a call that failed.",
		} {
			list := *hooks.AdditionalProperties
			list.Description = desc
			hooks.Properties[event] = &list
		}
	})
	raw := s.JSON()
	if err := s.Err(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// TestSettingsSchemaIsCurrent holds the settings schema the VS Code
// extension ships to what the Settings type generates.
// TOOLHOST_UPDATE_SCHEMAS=1 rewrites it (make docs does).
func TestSettingsSchemaIsCurrent(t *testing.T) {
	want, err := settingsSchema()
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("TOOLHOST_UPDATE_SCHEMAS") == "1" {
		if err := os.WriteFile(settingsSchemaFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(settingsSchemaFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what the settings.Settings type generates: run make docs", settingsSchemaFile)
	}
}
