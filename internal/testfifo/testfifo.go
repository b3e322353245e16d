// Package testfifo makes named pipes (FIFOs) for tests of how toolhost
// refuses files that are not regular files. Windows has no FIFOs in its
// file system, so there the test is skipped: it cannot run.
package testfifo

import "testing"

// Make creates a FIFO at path, failing t when it cannot, and skipping t on
// a system without FIFOs.
func Make(t testing.TB, path string) {
	t.Helper()
	if !Supported {
		t.Skip("this system has no named pipes (FIFOs) in its file system")
	}
	if err := mkfifo(path); err != nil {
		t.Fatalf("making a named pipe at %s: %v", path, err)
	}
}
