package settings

import (
	"path/filepath"
	"strings"
)

// userOnlyKeys are settings a project file (<root>/.toolhost/settings.json
// or settings.local.json) may not set: they send data, or the user's keys,
// to an address of the file's choosing.
var userOnlyKeys = []string{"providers"}

// isProjectFile reports whether source is a settings file inside one of the
// workspace roots.
func isProjectFile(source string, roots []string) bool {
	for _, r := range roots {
		dir := filepath.Join(r, ProjectDir) + string(filepath.Separator)
		if strings.HasPrefix(source, dir) {
			return true
		}
	}
	return false
}

// dropUserOnly removes the user-only keys from a project layer, reporting
// each.
func dropUserOnly(source string, layer map[string]any) []Problem {
	var out []Problem
	for _, k := range userOnlyKeys {
		if _, ok := layer[k]; ok {
			delete(layer, k)
			out = append(out, Problem{File: source, Key: k, Message: "may be set only in the user settings file (" +
				"~/.config/toolhost/settings.json) or by the editor, not in a project's files; ignored"})
		}
	}
	return out
}
