package search

// rgSearchesOpenFiles: Windows cannot hand a child process an open file
// beyond its standard three (os/exec has no ExtraFiles there), and rg
// given the path would open it again outside the jail; a single file is
// searched by the Go backend, through the jail.
const rgSearchesOpenFiles = false
