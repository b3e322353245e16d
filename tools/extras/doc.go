// Package extras holds small tools that are not part of Claude Code's set
// but that agents built on other systems expect: GetTime (the current time
// in any IANA zone) and Memory (notes kept as markdown files in the
// workspace, under .toolhost/memory/).
package extras
