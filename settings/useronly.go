package settings

// userOnlyKeys are settings a project file (<root>/.toolhost/settings.json
// or settings.local.json) may not set: they send data, or the user's keys,
// to an address of the file's choosing.
var userOnlyKeys = []string{"providers"}

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
