package search

import (
	"errors"
	"os"
)

// mapFile does not map on Windows: a mapped file cannot be truncated or
// replaced by the editor while Grep reads it (Windows refuses with a
// sharing violation), so big files are read instead.
func mapFile(*os.File, int) ([]byte, func(), error) {
	return nil, nil, errors.New("not mapped on Windows")
}
