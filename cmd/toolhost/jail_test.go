package main

import (
	"os"
	"testing"

	"github.com/toolhost/toolhost/internal/execjail"
	"github.com/toolhost/toolhost/internal/lifetime"
)

// TestMain lets this test binary serve the jail helper, so that Grep runs
// ripgrep jailed here as it does in toolhost, and the reaper of commands.
func TestMain(m *testing.M) {
	execjail.MainIfAsked()
	lifetime.MainIfAsked()
	os.Exit(m.Run())
}
