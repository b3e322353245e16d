package testproc

import "golang.org/x/sys/windows"

// Gone reports whether pid no longer runs: it cannot be opened, or it has
// an exit code.
func Gone(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return err != windows.ERROR_ACCESS_DENIED
	}
	defer windows.CloseHandle(h)
	var code uint32
	// 259 is STILL_ACTIVE.
	return windows.GetExitCodeProcess(h, &code) == nil && code != 259
}
