package search

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/search/searchtest"
	"github.com/toolhost/toolhost/workspace"
)

// run executes a tool with input (marshalled to JSON) and fails the test
// on an infrastructure error.
func run(t testing.TB, tool tools.Tool, input any) *tools.Result {
	t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tool.Execute(context.Background(), &tools.Call{Input: raw, Host: tools.NoHost{}, Progress: tools.NoProgress{}})
	if err != nil {
		t.Fatalf("%s %s: %v", tool.Name(), raw, err)
	}
	return res
}

// generatedWorkspace returns a workspace over a generated tree of about n files.
func generatedWorkspace(t testing.TB, n int) (*workspace.Workspace, string) {
	t.Helper()
	dir := t.TempDir()
	if _, err := searchtest.Generate(dir, n); err != nil {
		t.Fatal(err)
	}
	return workspace.New(dir), dir
}

// requireRipgrep returns rg's path or skips the test.
func requireRipgrep(t testing.TB) string {
	t.Helper()
	rg := FindRipgrep()
	if rg == "" {
		t.Skip("rg is not on PATH")
	}
	return rg
}

// writeFile writes content to dir/rel.
func writeFile(t testing.TB, dir, rel, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(rel)), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
