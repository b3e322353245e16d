package chatapi

import (
	"os/exec"
	"strings"
	"testing"
)

// The packages under internal are the bottom of the house: none imports a
// package of the project outside internal (settings, tools, workspace,
// the servers). chatapi took only three strings from settings; it now has
// its own Endpoint, which the settings' entries convert to.
func TestInternalImportsNothingAbove(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "github.com/toolhost/toolhost/internal/...").CombinedOutput()
	if err != nil {
		t.Skipf("go list: %v\n%s", err, out)
	}
	const module = "github.com/toolhost/toolhost/"
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, " ")
		for _, imp := range strings.Fields(imports) {
			if strings.HasPrefix(imp, module) && !strings.HasPrefix(imp, module+"internal/") {
				t.Errorf("%s imports %s, a package above internal", pkg, imp)
			}
		}
	}
}
