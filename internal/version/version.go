// Package version is toolhost's version, the one source every front door
// reports: `toolhost version`, serverInfo of `toolhost serve` and the MCP
// handshake of `toolhost mcp`.
package version

import (
	"runtime/debug"
	"sync"
)

// stamped is set at build time:
//
//	go build -ldflags "-X github.com/toolhost/toolhost/internal/version.stamped=v1.2.3"
//
// (make build stamps `git describe`).
var stamped string

// String returns the stamped version; else the module version Go recorded
// (a `go install ...@v1.2.3`); else the commit the binary was built from,
// marked "-dirty" when the work tree had changes; else "dev".
func String() string {
	once.Do(func() { computed = compute(stamped, debug.ReadBuildInfo) })
	return computed
}

var (
	once     sync.Once
	computed string
)

func compute(stamped string, read func() (*debug.BuildInfo, bool)) string {
	if stamped != "" {
		return stamped
	}
	info, ok := read()
	if !ok {
		return "dev"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}
