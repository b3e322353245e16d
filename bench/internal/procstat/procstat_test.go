package procstat

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"
)

// A child that burns processor time counts in CPUTimeWithChildren once
// waited for, and not in CPUTime of this process: the first is what
// searchbench charges a tool with its ripgrep, the second what the server
// alone costs.
func TestCPUTimeWithChildrenCountsWaitedChildren(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads Linux's /proc")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	selfBefore, err := CPUTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	allBefore, err := CPUTimeWithChildren()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sh, "-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	child := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if child < 100*time.Millisecond {
		t.Skipf("the child used only %v: too little to tell from the 10 ms ticks", child)
	}
	selfAfter, _ := CPUTime(os.Getpid())
	allAfter, _ := CPUTimeWithChildren()
	// /proc counts in 10 ms ticks, rounded down on each side.
	const tick = 20 * time.Millisecond
	if got := allAfter - allBefore; got < child-tick {
		t.Errorf("CPUTimeWithChildren grew by %v while a waited-for child used %v", got, child)
	}
	if got := selfAfter - selfBefore; got > child/2 {
		t.Errorf("CPUTime of this process grew by %v: it counts the child's %v", got, child)
	}
}

// touched keeps TestUsageSinceCountsFreshPages' memory alive.
var touched []byte

// Memory touched for the first time shows in the faults of a Usage taken
// after it, since one taken before: one fault a page at most.
func TestUsageSinceCountsFreshPages(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads Linux's /proc")
	}
	before, err := UsageOf(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	const pages = 2048
	touched = make([]byte, pages*4096)
	for i := 0; i < len(touched); i += 4096 {
		touched[i] = 1
	}
	after, err := UsageOf(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	used := after.Since(before)
	// Huge pages can map the slice in a few faults; it is never free.
	if used.Faults < 1 || used.Faults > pages+256 {
		t.Errorf("touching %d fresh pages took %d faults", pages, used.Faults)
	}
	if used.CPU < 0 {
		t.Errorf("processor time went back by %v", -used.CPU)
	}
}
