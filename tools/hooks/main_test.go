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
	os.Exit(m.Run())
}
