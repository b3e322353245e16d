//go:build unix

package shell

// decodeCommandOutput keeps a command's output as it came: Unix programs
// write the locale's encoding, UTF-8 on every system toolhost supports.
func decodeCommandOutput(out string) string { return out }
