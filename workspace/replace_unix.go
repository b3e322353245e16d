//go:build unix

package workspace

// renameReplacing puts from in place of to: rename replaces atomically and
// never waits for another process on Unix.
func renameReplacing(fsys fileSystem, from, to string) error { return fsys.Rename(from, to) }
