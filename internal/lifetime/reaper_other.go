//go:build !linux

package lifetime

import (
	"fmt"
	"os"
)

// reaperSupported: child subreapers are Linux's; elsewhere commands run
// without a reaper, ended by their process group.
const reaperSupported = false

func reaperMain([]string) int {
	fmt.Fprintln(os.Stderr, "toolhost reap: not supported on this system")
	return 127
}
