package shell

import (
	"sync"

	"golang.org/x/sys/windows"
)

// getOEMCP is kernel32's GetOEMCP, which x/sys/windows does not wrap.
var getOEMCP = windows.NewLazySystemDLL("kernel32.dll").NewProc("GetOEMCP")

// consoleCodePage is the code page console programs write their output
// in: the console's output code page when toolhost has a console, else
// the OEM code page, which a new console starts with (commands run with
// CREATE_NO_WINDOW get one), else the ANSI code page. Read once: a
// console's code page is changed by the user, not while toolhost runs.
var consoleCodePage = sync.OnceValue(func() uint32 {
	if cp, err := windows.GetConsoleOutputCP(); err == nil && cp != 0 {
		return cp
	}
	if getOEMCP.Find() == nil {
		if cp, _, _ := getOEMCP.Call(); cp != 0 {
			return uint32(cp)
		}
	}
	return windows.GetACP()
})

// decodeCommandOutput turns a command's output into UTF-8 (decodeCodePage).
func decodeCommandOutput(out string) string { return decodeCodePage(out, consoleCodePage()) }
