// Package testnpm finds, for tests, the npm packages `make deps` installs in
// test/mcp: the real MCP servers and the Node MCP SDK. A test that needs one
// is skipped when it is missing, except under CI (CI set), where a missing
// install is a failure.
package testnpm

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Dir returns test/mcp, the folder of those packages' package.json.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "test", "mcp")
}

// Package returns the folder of the installed npm package name (e.g.
// "@modelcontextprotocol/server-everything"), skipping or failing t as the
// package doc says when it is not installed.
func Package(t testing.TB, name string) string {
	t.Helper()
	dir := filepath.Join(Dir(), "node_modules", filepath.FromSlash(name))
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed (%v): run `npm ci` in test/mcp (make deps)", name, err)
		}
		t.Skipf("%s is not installed: run `npm ci` in test/mcp (make deps) to run this test", name)
	}
	return dir
}

// EverythingScript returns the entry point of
// @modelcontextprotocol/server-everything; run it as `node SCRIPT stdio`.
func EverythingScript(t testing.TB) string {
	t.Helper()
	return filepath.Join(Package(t, "@modelcontextprotocol/server-everything"), "dist", "index.js")
}
