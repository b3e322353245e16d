package ignore

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
)

// openHandles counts this process's open handles: on Windows the walk's
// folders are handles, and /proc/self/fd (read under Wine) counts Wine's
// own descriptors, which come and go with its caches.
func openHandles(t *testing.T) int {
	var n uint32
	if err := windows.NtQueryInformationProcess(windows.CurrentProcess(), windows.ProcessHandleCount,
		unsafe.Pointer(&n), uint32(unsafe.Sizeof(n)), nil); err != nil {
		t.Skipf("the handle count cannot be read: %v", err)
	}
	if n == 0 {
		// A process holds handles from its start: zero is no count (Wine
		// 8 answers zero).
		t.Skip("this system does not count a process's handles")
	}
	return int(n)
}
