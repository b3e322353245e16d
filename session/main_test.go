package session

import (
	"os"
	"testing"
)

// TestMain gives the test program a state folder of its own: every change
// a test makes through a session is recorded in the workspace's change
// journal there, never in the user's cache folder.
func TestMain(m *testing.M) {
	state, err := os.MkdirTemp("", "toolhost-session-state-")
	if err != nil {
		panic(err)
	}
	os.Setenv("TOOLHOST_STATE_DIR", state)
	code := m.Run()
	os.RemoveAll(state)
	os.Exit(code)
}
