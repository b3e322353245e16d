package hooks

import (
	"os"
	"testing"

	"github.com/toolhost/toolhost/internal/lifetime"
)

// TestMain lets this test binary serve the reaper of commands, as toolhost
// does, so that hooks run here below one.
func TestMain(m *testing.M) {
	lifetime.MainIfAsked()
	code := m.Run()
	// The cgroups the tests' commands ran in go with them.
	lifetime.KillAll()
	os.Exit(code)
}
