//go:build unix

package pathutil

import "syscall"

// NoFollowFlag makes os.OpenFile refuse a link in the last step of the
// path (ELOOP).
const NoFollowFlag = syscall.O_NOFOLLOW
