package shell

import (
	"os"
	"testing"

	"github.com/toolhost/toolhost/internal/lifetime"
)

// TestMain lets this test binary serve the reaper of commands, as toolhost
// does, so that commands run here below one.
// Saved outputs go to a state folder of the test's own, never the user's.
func TestMain(m *testing.M) {
	lifetime.MainIfAsked()
	fakePowerShellIfAsked()
	state, err := os.MkdirTemp("", "toolhost-shell-state-")
	if err != nil {
		panic(err)
	}
	os.Setenv("TOOLHOST_STATE_DIR", state)
	code := m.Run()
	// The cgroups the tests' commands ran in go with them.
	lifetime.KillAll()
	os.RemoveAll(state)
	os.Exit(code)
}
