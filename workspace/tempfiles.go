package workspace

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/internal/lifetime"
	"github.com/toolhost/toolhost/internal/pathutil"
)

// Temporary files of writes cut short.
//
// A write makes a temporary file next to its target and renames it in place
// (writeAtomic). If the process is killed between the two (kill -9, a power
// cut), the temporary file stays. So before making one, its path goes into
// this process's list of pending temporary files, a file under the user's
// cache folder named by the process id; the next toolhost to start removes
// the files listed by processes that no longer run (CleanStaleTemps). Only
// names writeAtomic makes are removed, so a user's file is never taken for
// one, and no workspace is scanned.

// pending is this process's list.
var pending tempList

type tempList struct {
	mu sync.Mutex
	// f is the open list, nil until the first write; broken is set when it
	// cannot be made (the cleanup then has nothing to go on, and writes
	// still work).
	f      *os.File
	broken bool
}

// pendingDir is the folder of the lists: $TOOLHOST_STATE_DIR when set (for
// tests), else toolhost/pending-writes in the user's cache folder.
func pendingDir() (string, error) {
	base, err := pathutil.StateDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "pending-writes"), nil
}

// record adds a temporary file's absolute path to the list before the file
// is made. The list is not synced: a process killed keeps what it wrote,
// and a power cut may lose the last entries, a rare leftover the user can
// delete by its name.
func (l *tempList) record(path string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.broken {
		return
	}
	if l.f == nil {
		dir, err := pendingDir()
		if err == nil {
			err = os.MkdirAll(dir, 0o700)
		}
		if err == nil {
			l.f, err = openPendingList(filepath.Join(dir, strconv.Itoa(os.Getpid())+".list"))
		}
		if err != nil {
			l.broken = true
			return
		}
	}
	if _, err := l.f.WriteString(path + "\n"); err != nil {
		l.broken = true
	}
}

// CleanStaleTemps removes the temporary files that processes no longer
// running left behind, and their lists, and returns how many files it
// removed. A list under this process's own id is a dead process's whose id
// was taken again, so this must run before the process writes anything:
// toolhost runs it once, as its first session is made (CleanStaleTempsOnce).
func CleanStaleTemps() int {
	dir, err := pendingDir()
	if err != nil {
		return 0
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	removed := 0
	for _, e := range entries {
		pid, err := strconv.Atoi(strings.TrimSuffix(e.Name(), ".list"))
		if err != nil || !strings.HasSuffix(e.Name(), ".list") || (pid != os.Getpid() && running(pid)) {
			continue
		}
		list := filepath.Join(dir, e.Name())
		removed += removeListed(list)
		os.Remove(list)
	}
	return removed
}

// cleanStaleOnce runs CleanStaleTemps for CleanStaleTempsOnce.
var cleanStaleOnce = sync.OnceValue(CleanStaleTemps)

// CleanStaleTempsOnce is CleanStaleTemps the first time a process calls
// it and nothing later: a later run would take the process's own list,
// whose writes may be under way, for a dead process's.
func CleanStaleTempsOnce() { cleanStaleOnce() }

// running reports whether a process with this id exists. The list of one
// that ended and whose id was taken again waits for a later start.
func running(pid int) bool {
	return lifetime.Alive(pid)
}

// removeListed removes the temporary files a list names that still exist.
func removeListed(list string) int {
	f, err := os.Open(list)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		p := sc.Text()
		if !filepath.IsAbs(p) || !isTempName(p) {
			continue
		}
		if st, err := os.Lstat(p); err == nil && st.Mode().IsRegular() && os.Remove(p) == nil {
			n++
		}
	}
	return n
}
