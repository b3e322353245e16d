package hugemem

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// advised says that advise asks the kernel for huge pages here.
const advised = true

// advise asks for huge pages over size bytes of b from its first huge page
// boundary, and returns that boundary's offset; b holds size bytes past
// it. It is advice: where huge pages are off or none is free the kernel
// uses small ones, and an error changes nothing, so it is ignored.
func advise(b []byte, size int) (off int) {
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	off = int((p+hugePage-1)&^(hugePage-1) - p)
	_ = unix.Madvise(b[off:off+size], unix.MADV_HUGEPAGE)
	return off
}
