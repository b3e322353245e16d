package main

import (
	"os"
	"testing"

	"github.com/toolhost/toolhost/internal/lifetime"
)

// TestMain lets this test binary serve the reaper of commands.
func TestMain(m *testing.M) {
	lifetime.MainIfAsked()
	os.Exit(m.Run())
}
