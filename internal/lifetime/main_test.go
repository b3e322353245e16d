package lifetime

import (
	"os"
	"testing"
)

// TestMain lets this test binary serve the reaper of commands, as toolhost
// does, so that commands run here below one.
func TestMain(m *testing.M) {
	MainIfAsked()
	os.Exit(m.Run())
}
