//go:build unix

package search

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps the first size bytes of f read-only.
func mapFile(f *os.File, size int) ([]byte, func(), error) {
	data, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return data, func() { _ = unix.Munmap(data) }, nil
}
