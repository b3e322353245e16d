// Package teststate gives a test program a state folder of its own, so
// that what its tests record there (change journals, the list of pending
// temporary files) never lands in the user's cache folder.
package teststate

import (
	"os"
	"testing"
)

// Main runs m with TOOLHOST_STATE_DIR set to a new temporary folder named
// after pkg, removes the folder, and exits with the tests' code. One
// folder serves the whole program: some state (the pending-writes list)
// is opened once per process and stays open, so a folder per test would
// keep the first writer's folder open (Windows cannot delete it then).
func Main(m *testing.M, pkg string) {
	state, err := os.MkdirTemp("", "toolhost-"+pkg+"-state-")
	if err != nil {
		panic(err)
	}
	os.Setenv("TOOLHOST_STATE_DIR", state)
	code := m.Run()
	os.RemoveAll(state)
	os.Exit(code)
}
