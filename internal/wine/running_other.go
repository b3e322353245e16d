//go:build !windows

package wine

// Running is false: Wine runs only Windows programs.
func Running() bool { return false }
