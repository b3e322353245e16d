package pathutil

// NoFollowFlag is zero on Windows, whose open has no such flag (a link is
// followed): callers that must not read through a swapped link compare
// the opened file with the one they expect (os.SameFile), which catches
// the swap there too.
const NoFollowFlag = 0
