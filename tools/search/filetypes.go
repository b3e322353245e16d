package search

import (
	_ "embed"
	"path"
	"sort"
	"strings"
	"sync"
)

// filetypes.txt is ripgrep's own table of file types (`rg --type-list`),
// so Grep's `type` means the same with and without ripgrep.
//
//go:embed filetypes.txt
var fileTypeTable string

var (
	fileTypesOnce sync.Once
	fileTypes     map[string][]string
)

// fileTypeGlobs returns the file-name globs of a ripgrep file type.
func fileTypeGlobs(name string) ([]string, bool) {
	fileTypesOnce.Do(func() {
		fileTypes = map[string][]string{}
		for _, line := range strings.Split(fileTypeTable, "\n") {
			n, globs, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			for _, g := range strings.Split(globs, ",") {
				if g = strings.TrimSpace(g); g != "" {
					fileTypes[n] = append(fileTypes[n], g)
				}
			}
		}
	})
	g, ok := fileTypes[name]
	return g, ok
}

// matchesFileType reports whether a file name has one of the globs.
func matchesFileType(globs []string, name string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}

// someFileTypes lists a few type names for error messages.
func someFileTypes() string {
	fileTypeGlobs("")
	common := []string{"c", "cpp", "css", "go", "html", "java", "js", "json", "md", "py", "rust", "sh", "ts", "yaml"}
	var names []string
	for _, n := range common {
		if _, ok := fileTypes[n]; ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
