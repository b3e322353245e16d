package pathutil

import (
	"runtime"
	"strings"
)

// CaseInsensitive reports whether this system's usual file systems treat
// names that differ only in case as one (NTFS on Windows, APFS on macOS by
// default): there .GIT\CONFIG is .git/config.
const CaseInsensitive = runtime.GOOS == "windows" || runtime.GOOS == "darwin"

// FoldCase returns name in the one case this system's file names compare
// in: lower case where names are case-insensitive, name itself elsewhere.
// Checks that protect a file by its name compare folded names, so that a
// differently cased spelling cannot slip past them.
func FoldCase(name string) string {
	if CaseInsensitive {
		return strings.ToLower(name)
	}
	return name
}
