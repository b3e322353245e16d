package lspserver

import (
	"os"
	"testing"

	"github.com/toolhost/toolhost/internal/execjail"
)

// TestMain lets this test binary serve the jail helper, so that Grep runs
// ripgrep jailed here as it does in toolhost.
func TestMain(m *testing.M) {
	execjail.MainIfAsked()
	os.Exit(m.Run())
}
