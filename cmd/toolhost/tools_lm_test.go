package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestLanguageModelToolsAreCurrent fails when the VS Code extension's
// contributes.languageModelTools differs from what `toolhost tools lm`
// generates from the registry: run `make docs` and commit package.json.
func TestLanguageModelToolsAreCurrent(t *testing.T) {
	// As `make docs` generates them: with no user skills (an empty home).
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	list, err := languageModelTools()
	if err != nil {
		t.Fatal(err)
	}
	// Compared as JSON values, as VS Code reads them.
	body, _ := json.Marshal(list)
	var want any
	if err := json.Unmarshal(body, &want); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join("..", "..", "editor-client", "vscode", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Contributes struct {
			LanguageModelTools any `json:"languageModelTools"`
		} `json:"contributes"`
	}
	if err := json.Unmarshal(raw, &pkg); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(pkg.Contributes.LanguageModelTools, want) {
		t.Fatal("editor-client/vscode/package.json's languageModelTools are stale: run `make docs` and commit package.json")
	}
	names := map[string]bool{}
	for _, tool := range list {
		names[tool["name"].(string)] = true
	}
	for _, n := range []string{"Read", "Write", "Edit", "Bash", "Grep", "Glob", "AskUserQuestion", "Agent", "TodoWrite"} {
		if !names[LMToolPrefix+n] {
			t.Errorf("no language-model tool for %s", n)
		}
	}
}
