//go:build !linux

package hugemem

// advised is false where transparent huge pages are not asked for with
// madvise: Bytes is a plain allocation there.
const advised = false

func advise([]byte, int) (off int) { return 0 }
