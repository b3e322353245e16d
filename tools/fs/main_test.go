package fs

import (
	"os"
	"testing"
)

// TestMain gives the whole test program one state folder of its own, never
// the user's: the list of pending temporary files that writes keep there
// is opened once per process and stays open, so a folder per test would
// hold the first writer's folder open (Windows cannot delete it then).
func TestMain(m *testing.M) {
	state, err := os.MkdirTemp("", "toolhost-fs-state-")
	if err != nil {
		panic(err)
	}
	os.Setenv("TOOLHOST_STATE_DIR", state)
	code := m.Run()
	os.RemoveAll(state)
	os.Exit(code)
}
