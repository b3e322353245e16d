// Package hugemem allocates the large byte buffers of big messages and
// texts (a 5 MB Write, its workspace/applyEdit, the editor's didChange) in
// memory the kernel may back with transparent huge pages.
//
// Go's heap is backed by 4 KB pages, each faulted in the first time it is
// touched. On the virtual machines toolhost runs on a fault costs tens of
// microseconds, so filling a fresh 5 MB buffer cost 25-30 ms of CPU, more
// than the work done on it; with huge pages it is 512 times fewer faults
// and about a third of that CPU. The Go runtime no longer asks for huge
// pages itself, and a system set to "madvise" (a common default) gives them
// only to memory that asks.
package hugemem

// Min is the size from which Bytes asks for huge pages: below it the slack
// that aligns a buffer (up to two huge pages of address space, which the
// collector counts as heap and paces itself by) weighs more than the faults
// saved.
const Min = 4 << 20

// Bytes returns a zeroed slice of length and capacity n. From Min bytes on
// (where the system takes the advice) it is cut from an allocation of
// whole huge pages plus one, so that it starts on a huge page boundary and
// its last part too lies in a huge page, not in small ones; those huge
// pages are advised as such before anything touches them. The slack is
// address space only: pages never touched take no memory.
func Bytes(n int) []byte {
	if n < Min || !advised {
		return make([]byte, n)
	}
	whole := (n + hugePage - 1) &^ (hugePage - 1)
	b := make([]byte, whole+hugePage)
	off := advise(b, whole)
	return b[off : off+n : off+n]
}

// hugePage is the size of a transparent huge page on the platforms Go
// runs Linux on most (amd64, arm64 with 4 KB base pages).
const hugePage = 2 << 20
