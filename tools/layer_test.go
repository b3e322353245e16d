package tools

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/toolhost/toolhost/"

// layerOf is the floor of the house a package of the module stands on: a
// package imports only packages on its own floor or below. The kernel
// (tools) holds what a tool author needs; the tool families stand on it;
// the engine (pipeline, validation, repair, batching) runs their calls;
// the tools that run calls themselves (sub-agents, teams) and the list of
// built-ins stand on the engine; the servers and the command on top.
func layerOf(pkg string) int {
	p := strings.TrimPrefix(pkg, module)
	switch {
	case strings.HasPrefix(p, "internal/"), strings.HasPrefix(p, "third_party/"):
		return 0
	case p == "workspace" || strings.HasPrefix(p, "workspace/") || p == "settings":
		return 1
	case p == "tools":
		return 2
	case p == "tools/engine":
		return 4
	case p == "tools/agent" || p == "tools/team" || p == "tools/builtin":
		return 5
	case strings.HasPrefix(p, "tools/"):
		return 3
	case strings.HasPrefix(p, "cmd/"):
		return 7
	}
	return 6 // the servers: session, lspserver, mcpserver, ideserver, ...
}

// goList is each package's import path and its imports, as go list gives
// them.
func goList(t *testing.T, pattern string) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, pattern).CombinedOutput()
	if err != nil {
		t.Skipf("go list: %v\n%s", err, out)
	}
	pkgs := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkgs[fields[0]] = fields[1:]
	}
	return pkgs
}

// TestNoPackageImportsOneAbove holds the floors of layerOf.
func TestNoPackageImportsOneAbove(t *testing.T) {
	for pkg, imports := range goList(t, module+"...") {
		for _, imp := range imports {
			if strings.HasPrefix(imp, module) && layerOf(imp) > layerOf(pkg) {
				t.Errorf("%s (floor %d) imports %s (floor %d), a package above it", pkg, layerOf(pkg), imp, layerOf(imp))
			}
		}
	}
}

// TestKernelImportsOnlyTheKernel: a tool links the kernel without the
// engine's machinery (hooks, settings, the validator, text formatting, a
// second JSON decoder): tools imports, besides the standard library, only
// the workspace, the bottom floor and the schema generator.
func TestKernelImportsOnlyTheKernel(t *testing.T) {
	allowed := map[string]bool{
		module + "workspace":                         true,
		"github.com/google/jsonschema-go/jsonschema": true,
	}
	for _, imp := range goList(t, module+"tools")[module+"tools"] {
		first, _, _ := strings.Cut(imp, "/")
		stdlib := !strings.Contains(first, ".")
		if stdlib || allowed[imp] || strings.HasPrefix(imp, module+"internal/") {
			continue
		}
		t.Errorf("the kernel imports %s; what needs it belongs in tools/engine or a tool family", imp)
	}
}
