//go:build unix

package testproc

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Gone reports whether pid no longer runs. A zombie counts as gone: it runs
// nothing and only waits to be reaped, by a parent that may not be the test.
func Gone(pid int) bool {
	if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// The state follows the parenthesised command name.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X')
}
