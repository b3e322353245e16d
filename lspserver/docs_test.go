package lspserver

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// toolhostMethod is a toolhost/... method name as the page writes it, in
// backticks (a path such as .toolhost/settings.json is not one).
var toolhostMethod = regexp.MustCompile("`(toolhost/[a-zA-Z]+)`")

// TestProtocolPageNamesTheMethodsTheCodeHas fails when docs/protocol.md
// names a toolhost/... method that no Go source sends or handles, or when
// the code handles or sends one the page does not describe.
func TestProtocolPageNamesTheMethodsTheCodeHas(t *testing.T) {
	root := filepath.Join("..")
	page, err := os.ReadFile(filepath.Join(root, "docs", "protocol.md"))
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, m := range toolhostMethod.FindAllStringSubmatch(string(page), -1) {
		documented[m[1]] = true
	}

	inCode := methodsInCode(t)
	if len(inCode) == 0 || len(documented) == 0 {
		t.Fatalf("found %d methods in the code and %d in docs/protocol.md: the patterns no longer match", len(inCode), len(documented))
	}
	for m := range documented {
		if _, ok := inCode[m]; !ok {
			t.Errorf("docs/protocol.md names %s, which no Go source of the server sends or handles", m)
		}
	}
	for m, path := range inCode {
		if !documented[m] {
			t.Errorf("%s uses the method %s, which docs/protocol.md does not describe", path, m)
		}
	}
	for _, m := range Methods {
		if !strings.Contains(string(page), "| `"+m+"` |") {
			t.Errorf("docs/protocol.md has no row for the request %s in its table of requests the client sends", m)
		}
	}
}

// TestProtocolPageNamesEveryClientCapability fails when a field of
// experimental.toolhost that the server reads is missing from
// docs/protocol.md's list of client capabilities.
func TestProtocolPageNamesEveryClientCapability(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "docs", "protocol.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(page), "`experimental.toolhost` tells the server")
	section, _, _ = strings.Cut(section, "\n\n")
	typ := reflect.TypeFor[toolhostClientCapabilities]()
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if !strings.Contains(section, "`"+name+"`") {
			t.Errorf("docs/protocol.md does not describe the client capability experimental.toolhost.%s", name)
		}
		if !strings.Contains(string(page), `"`+name+`": `) {
			t.Errorf("docs/protocol.md's initialize example does not declare %s", name)
		}
	}
}

// methodsInCode maps every "toolhost/..." string literal of the editor
// server's Go sources to a file naming it: the benchmarks are clients, and
// mcpserver speaks MCP (its "toolhost/..." strings are _meta keys, not
// methods).
func methodsInCode(t *testing.T) map[string]string {
	t.Helper()
	root := filepath.Join("..")
	inCode := map[string]string{}
	literal := regexp.MustCompile(`"(toolhost/[a-zA-Z]+)"`)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "bench", "mcpserver", "editor-client", "node_modules", "testdata", "third_party", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range literal.FindAllStringSubmatch(string(src), -1) {
			inCode[m[1]] = path
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return inCode
}
