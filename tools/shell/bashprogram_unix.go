//go:build unix

package shell

// bashProgram is the bash that runs commands: bash on PATH.
func bashProgram() (string, error) { return "bash", nil }
