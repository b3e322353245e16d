package wine

import (
	"os"
	"runtime"
	"testing"
)

// Running agrees with what the test run says it is: make test-windows sets
// TOOLHOST_UNDER_WINE=1 for the programs it runs under Wine, and nothing
// sets it on Linux or on a real Windows machine.
func TestRunningKnowsWine(t *testing.T) {
	want := os.Getenv("TOOLHOST_UNDER_WINE") == "1"
	if runtime.GOOS != "windows" {
		want = false
	}
	if got := Running(); got != want {
		t.Fatalf("Running() = %v on %s with TOOLHOST_UNDER_WINE=%q", got, runtime.GOOS, os.Getenv("TOOLHOST_UNDER_WINE"))
	}
}
