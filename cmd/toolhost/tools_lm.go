package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/toolhost/toolhost/session"
)

// LMToolPrefix starts the names of the VS Code language-model tools that
// stand for toolhost's built-in tools (toolhost_Read, ...).
const LMToolPrefix = "toolhost_"

// languageModelTools returns the VS Code extension's
// contributes.languageModelTools: one entry per built-in tool, with its
// description and input schema, in registry order. VS Code reads the list
// from package.json only, so it is generated (`make docs`) and a test
// fails when package.json is stale. Built in an empty workspace with no
// user settings, so it depends on the code alone.
func languageModelTools() ([]map[string]any, error) {
	dir, err := os.MkdirTemp("", "toolhost-lm-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	sess, err := session.New(session.Options{Roots: []string{dir}, UserConfigPath: filepath.Join(dir, "no-user-settings.json"), NoMCP: true})
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	var out []map[string]any
	for _, e := range sess.Registry.Entries(true) {
		t := e.Tool
		var schema any
		if err := json.Unmarshal(t.InputSchema(), &schema); err != nil {
			return nil, fmt.Errorf("the input schema of %s: %w", t.Name(), err)
		}
		name := LMToolPrefix + t.Name()
		out = append(out, map[string]any{
			"name":                    name,
			"toolReferenceName":       name,
			"displayName":             "toolhost " + t.Name(),
			"userDescription":         summary(t),
			"modelDescription":        t.Description(),
			"canBeReferencedInPrompt": true,
			"tags":                    []string{"toolhost", e.Category},
			"inputSchema":             schema,
		})
	}
	return out, nil
}

// toolsLM prints the languageModelTools JSON (`make docs` pipes it into
// the extension's package.json).
func toolsLM(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tools lm", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	list, err := languageModelTools()
	if err != nil {
		fmt.Fprintf(stderr, "toolhost tools lm: %v\n", err)
		return 1
	}
	body, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		fmt.Fprintf(stderr, "toolhost tools lm: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s\n", body)
	return 0
}
