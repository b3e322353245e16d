//go:build !linux

package workspace

import (
	"io/fs"
	"os"
)

// keepOwnerAndAttrs keeps nothing but the mode outside Linux.
func keepOwnerAndAttrs(fileSystem, string, fs.FileInfo, *os.File) {}
