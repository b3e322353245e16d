package settings

import "slices"

// isConcatenated reports whether the key k is an array whose entries add up
// across layers instead of the later layer replacing the earlier one:
// permission rules and the directories they cover (as Claude Code merges
// them), and blocked commands, so a project or client layer cannot lift a
// block the user set.
func isConcatenated(k string) bool {
	switch k {
	case "permissions.allow", "permissions.ask", "permissions.deny",
		"permissions.additionalDirectories", "bash.blockedCommands", "enabledMcpjsonServers":
		return true
	}
	return false
}

// replacedWhole reports whether the key k is a map whose entries a later layer
// replaces whole: an MCP server or ssh host defined twice is the later
// definition, not a mix.
func replacedWhole(k string) bool {
	switch k {
	case "mcpServers", "ssh.hosts", "providers":
		return true
	}
	return false
}

// mergeInto merges the (validated) layer src into dst: objects key by key,
// concatenated arrays appended without duplicates, hooks appended per
// event, everything else replaced. path is the dotted key of dst.
func mergeInto(dst, src map[string]any, path string) {
	for k, v := range src {
		key := joinKey(path, k)
		switch {
		case isConcatenated(key) || path == "hooks":
			dst[k] = appendUnique(dst[k], v, path != "hooks")
		case replacedWhole(path):
			dst[k] = v
		default:
			sub, srcIsObj := v.(map[string]any)
			cur, dstIsObj := dst[k].(map[string]any)
			if srcIsObj && dstIsObj {
				mergeInto(cur, sub, key)
				continue
			}
			if srcIsObj {
				fresh := map[string]any{}
				mergeInto(fresh, sub, key)
				dst[k] = fresh
				continue
			}
			dst[k] = v
		}
	}
}

// appendUnique appends the entries of the array b to the array a; with
// dedupe, entries already present (strings compared) are skipped.
func appendUnique(a, b any, dedupe bool) any {
	left, _ := a.([]any)
	right, _ := b.([]any)
	out := slices.Clone(left)
	// Entries are strings (validated): a set keeps the merge linear, since
	// a folder's file may hold hundreds of thousands of rules.
	var seen map[string]bool
	if dedupe {
		seen = make(map[string]bool, len(out)+len(right))
		for _, e := range out {
			if s, ok := e.(string); ok {
				seen[s] = true
			}
		}
	}
	for _, e := range right {
		if dedupe {
			s, ok := e.(string)
			if ok && seen[s] || !ok && slices.Contains(out, e) {
				continue
			}
			if ok {
				seen[s] = true
			}
		}
		out = append(out, e)
	}
	return out
}
