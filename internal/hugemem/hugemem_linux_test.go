package hugemem

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"
)

// TestBytesGetsHugePages: a fresh buffer from Bytes, once touched, is
// backed by huge pages (its mapping's AnonHugePages in /proc/self/smaps),
// where the system gives them to memory that asks.
func TestBytesGetsHugePages(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || strings.Contains(string(mode), "[never]") {
		t.Skipf("transparent huge pages are off here (%q, %v)", mode, err)
	}
	const n = 16 << 20
	b := Bytes(n)
	if len(b) != n || cap(b) != n {
		t.Fatalf("Bytes(%d) has length %d and capacity %d", n, len(b), cap(b))
	}
	at := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if at%hugePage != 0 {
		t.Errorf("the buffer starts at %#x, not on a huge page boundary", at)
	}
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	if huge := anonHugeKB(t, at); huge < n>>10 {
		t.Errorf("the buffer's mapping holds %d kB of huge pages; want all of its %d kB", huge, n>>10)
	}
}

// anonHugeKB is the AnonHugePages of the mapping holding addr.
func anonHugeKB(t *testing.T, addr uintptr) int {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x", &lo, &hi); n == 2 && strings.Contains(line, " ") && !strings.HasSuffix(strings.Fields(line)[0], ":") {
			in = lo <= addr && addr < hi
			continue
		}
		var kb int
		if in {
			if n, _ := fmt.Sscanf(line, "AnonHugePages: %d kB", &kb); n == 1 {
				return kb
			}
		}
	}
	t.Fatalf("no mapping in /proc/self/smaps holds %#x", addr)
	return 0
}
