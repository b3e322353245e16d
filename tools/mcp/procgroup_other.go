//go:build !unix

package mcp

import "os/exec"

func setProcessGroup(*exec.Cmd) {}

func killProcesses(*exec.Cmd) {}

// processGone cannot tell here; the connection's end is taken as the
// process's.
func processGone(int) bool { return true }
