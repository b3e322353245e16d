package lifetime

import (
	"os"
	"testing"
)

// TestMain lets this test binary serve the reaper of commands, as toolhost
// does, so that commands run here below one.
func TestMain(m *testing.M) {
	MainIfAsked()
	code := m.Run()
	// The cgroups the tests' commands ran in go with them.
	KillAll()
	os.Exit(code)
}
