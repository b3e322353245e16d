// Package startprocs runs the start of `toolhost mcp` on one processor
// (GOMAXPROCS 1) and gives the process the runtime's default once the
// start is over (Release).
//
// Why: with a second processor idle, every goroutine the start makes
// (signals, the transport's reader, the SDK's connection, the handler of
// the initialize request) wakes a thread for it, and the first wake
// creates one; on a two-core machine each costs the initialize reply
// tens of microseconds, and the start has nothing to do in parallel.
// On one processor the reply came 0.13 ms sooner and tools/list 0.1 ms
// later (400 alternating starts each; docs/mcp.md has the account).
//
// The lowering happens in this package's init, as early as the
// initialisation order allows (its imports are few, so it runs before
// most packages; lowering in main came too late and cost more than it
// saved). A user's GOMAXPROCS is left alone.
package startprocs

import (
	"os"
	"runtime"
	"sync"
)

// held says whether init lowered GOMAXPROCS; set once, by init.
var held bool

func init() {
	held = holds(os.Args, os.LookupEnv)
	if held {
		runtime.GOMAXPROCS(1)
	}
}

// releaseOnce makes Release act once.
var releaseOnce sync.Once

// holds reports whether a process run with args and an environment seen
// through lookup starts on one processor: `toolhost mcp` (its client
// waits for the first answer), unless the user set GOMAXPROCS.
func holds(args []string, lookup func(string) (string, bool)) bool {
	if len(args) < 2 || args[1] != "mcp" {
		return false
	}
	_, set := lookup("GOMAXPROCS")
	return !set
}

// Release gives the process the runtime's default GOMAXPROCS (which
// follows the machine and its CPU limit again) if init lowered it. It
// acts once; safe from any goroutine.
func Release() {
	releaseOnce.Do(func() {
		if held {
			runtime.SetDefaultGOMAXPROCS()
		}
	})
}
