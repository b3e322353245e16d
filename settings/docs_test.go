package settings

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docKey is a backticked dotted settings key in a page, such as
// `bash.maxTimeoutMs` or `edit.reviewInEditor` (a value after `:` or `=`
// and a sub-key of a map such as `env.GOFLAGS` are not keys).
var docKey = regexp.MustCompile("`((?:permissions|tools|bash|edit|paths|grep|webFetch|webSearch|agent|server|ssh)(?:\\.(?:[a-z][A-Za-z]*|\\*))+)`")

// TestDocumentedSettingsKeysExist fails when README.md or a docs/ page
// names a settings key that the Settings type does not have (a renamed or
// misspelt key in the docs).
func TestDocumentedSettingsKeysExist(t *testing.T) {
	keys := Keys()
	pages, err := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join("..", "README.md"),
		filepath.Join("..", "editor-client", "vscode", "README.md"),
		filepath.Join("..", "editor-client", "nvim", "doc", "toolhost.txt"))
	found := 0
	for _, page := range pages {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range docKey.FindAllStringSubmatch(string(text), -1) {
			key := m[1]
			found++
			if prefix, ok := strings.CutSuffix(key, ".*"); ok {
				if !slices.ContainsFunc(keys, func(k string) bool { return strings.HasPrefix(k, prefix+".") }) {
					t.Errorf("%s names the settings keys %s, but no key starts with %s.", page, key, prefix)
				}
				continue
			}
			if !slices.Contains(keys, key) && !mapKeyOf(keys, key) {
				t.Errorf("%s names the settings key %s, which does not exist: the keys are %s", page, key, strings.Join(keys, ", "))
			}
		}
	}
	if found == 0 {
		t.Fatal("no settings key found in the docs: the pattern no longer matches how the pages write keys")
	}
}

// mapKeyOf reports whether key is an entry of a map-valued key, such as
// ssh.hosts.NAME.
func mapKeyOf(keys []string, key string) bool {
	return slices.ContainsFunc(keys, func(k string) bool { return strings.HasPrefix(key, k+".") })
}
