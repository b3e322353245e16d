//go:build unix

package search

// rgSearchesOpenFiles: rg reads a single file the jail opened as its
// descriptor 3 (/dev/fd/3).
const rgSearchesOpenFiles = true
