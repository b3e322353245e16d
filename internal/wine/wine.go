// Package wine tells a test whether this Windows program runs under Wine,
// where the project's Windows tests run on Linux (make test-windows). Wine
// is not Windows: a test that needs what only Windows has (symbolic links,
// access lists, file-sharing locks as Windows keeps them) skips itself
// under Wine with Skip, naming the limit, and still runs on a real Windows
// machine, where Running is false.
package wine

import "testing"

// Limits of Wine 8 that tests name when they skip.
const (
	// Links: Wine makes no symbolic link that os.Lstat reports as one.
	Links = "Wine 8 makes no symbolic link that Lstat sees as a link"
	// LongPaths: Wine's server cannot map paths past Linux's PATH_MAX,
	// so a tree deeper than that can be made but not removed.
	LongPaths = "Wine 8 cannot remove a tree deeper than Linux's PATH_MAX"
	// DeleteOnClose: Wine 8 deletes a file that is still open only when
	// its last handle closes; Windows 10 and later remove its name at once
	// (POSIX semantics), which Go's os.RemoveAll asks for.
	DeleteOnClose = "Wine 8 deletes an open file only when it is closed"
)

// Skip skips t when this program runs under Wine, saying which of Wine's
// limits the test meets; elsewhere, real Windows included, it does nothing.
func Skip(t testing.TB, limit string) {
	t.Helper()
	if Running() {
		t.Skip("under Wine: " + limit)
	}
}
