package lifetime

import (
	"os"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows there are no process groups, parent-death signals or /proc:
//
//   - The server joins a Job Object with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
//     (joinServerJob, from Init). Every process it starts, and theirs, is
//     born in the job; the system closes the server's handle however the
//     server ends (TerminateProcess included) and then kills them all. This
//     replaces the watchdog.
//   - A command's "group" is its process tree: KillGroup(pid) kills pid and
//     every process whose parent chain leads to it, found in a snapshot of
//     the system's processes, in rounds (a process that started a child
//     meanwhile is caught by the next). A process whose parent ended before
//     the kill is not found this way; the server's job still ends it with
//     the server.
//   - Scopes (environment labels) are not read: another process's
//     environment is not readable without debugging rights. Scope.Kill
//     kills nothing; the tree and the job do the work.

// creationFlags keep a child out of the server's console group (a Ctrl-C
// typed at the server's terminal is the server's to handle) and give a
// console program no window of its own: the server usually runs without a
// console, and Windows would otherwise open one per command.
const creationFlags = windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_NO_WINDOW

func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: creationFlags}
}

func groupAttr() *syscall.SysProcAttr { return procAttr() }

// serverJob is the server's Job Object, held open for the server's life
// (never closed: its closing is what kills the processes).
var serverJob struct {
	mu     sync.Mutex
	handle windows.Handle
}

// joinServerJob puts this process in a Job Object that kills every
// process in it when its last handle closes, which happens when this
// process ends, however. It reports whether that worked (a parent that
// forbids nested jobs, or a system without them, leaves the tree kills).
func joinServerJob() bool {
	serverJob.mu.Lock()
	defer serverJob.mu.Unlock()
	if serverJob.handle != 0 {
		return true
	}
	job, err := newJob()
	if err != nil {
		return false
	}
	if err := windows.AssignProcessToJobObject(job, windows.CurrentProcess()); err != nil {
		windows.CloseHandle(job)
		return false
	}
	serverJob.handle = job
	return true
}

// killPid kills pid's process tree when pid is negative (a "group", as
// KillGroup passes it), else pid alone. A process already gone is no error.
func killPid(pid int) error {
	if pid < 0 {
		killTree(-pid, true)
		return nil
	}
	return terminate(uint32(pid))
}

// killBelowSelf kills every process below this one.
func killBelowSelf() int { return killTree(os.Getpid(), false) }

// GroupAlive reports whether pid or a process below it still runs.
func GroupAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if Alive(pid) {
		return true
	}
	for _, p := range treeBelow(uint32(pid)) {
		if Alive(int(p)) {
			return true
		}
	}
	return false
}

// terminate ends one process; one that is gone (or was never there) is
// no error.
func terminate(pid uint32) error {
	h, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, pid)
	if err != nil {
		if err == windows.ERROR_INVALID_PARAMETER {
			return nil
		}
		return err
	}
	defer windows.CloseHandle(h)
	err = windows.TerminateProcess(h, 1)
	if err == windows.ERROR_ACCESS_DENIED && !Alive(int(pid)) {
		return nil // already exiting
	}
	return err
}

// killTree kills the processes below root (and root when withRoot), in
// rounds until a round finds none left, and returns how many it killed.
func killTree(root int, withRoot bool) int {
	killed := map[uint32]bool{}
	if withRoot && terminate(uint32(root)) == nil {
		killed[uint32(root)] = true
	}
	for range maxRounds {
		n := 0
		for _, pid := range treeBelow(uint32(root)) {
			if killed[pid] {
				continue
			}
			if terminate(pid) == nil {
				killed[pid] = true
				n++
			}
		}
		if n == 0 {
			break
		}
	}
	return len(killed)
}

// treeBelow lists the processes whose parent chain leads to root, from a
// snapshot. Windows keeps a process's parent id after the parent ends and
// may give that id to a new process; a child must have started after its
// parent (creation times) to count as its child.
func treeBelow(root uint32) []uint32 {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return nil
	}
	defer windows.CloseHandle(snap)
	children := map[uint32][]uint32{}
	entry := windows.ProcessEntry32{Size: uint32(unsafe.Sizeof(windows.ProcessEntry32{}))}
	for err = windows.Process32First(snap, &entry); err == nil; err = windows.Process32Next(snap, &entry) {
		if entry.ProcessID != entry.ParentProcessID && entry.ProcessID != 0 {
			children[entry.ParentProcessID] = append(children[entry.ParentProcessID], entry.ProcessID)
		}
	}
	var out []uint32
	seen := map[uint32]bool{root: true}
	queue := []uint32{root}
	for len(queue) > 0 {
		parent := queue[0]
		queue = queue[1:]
		born, known := started(parent)
		for _, c := range children[parent] {
			if seen[c] {
				continue
			}
			if t, ok := started(c); known && ok && t < born {
				continue // an older process that reuses a dead parent's id
			}
			seen[c] = true
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// started returns pid's creation time (100 ns units), if it can be read.
func started(pid uint32) (int64, bool) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return 0, false
	}
	defer windows.CloseHandle(h)
	var creation, exit, kernel, user windows.Filetime
	if windows.GetProcessTimes(h, &creation, &exit, &kernel, &user) != nil {
		return 0, false
	}
	return creation.Nanoseconds() / 100, true
}
