package lifetime

import (
	"context"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// A command that runs what a user or a model wrote (Reaped: Bash,
// PowerShell, background tasks, Monitor) runs on Windows in a Job Object
// of its own, the Windows counterpart of a Linux cgroup: every process it
// starts is born in the job, none can leave it (the job does not allow
// breakaway), and TerminateJobObject ends them all at once, those whose
// parent has ended included, which the tree walk cannot find. The job is
// made with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE and only the server holds
// its handle: when the server ends, however (TerminateProcess included),
// the system closes the handle and kills the job's processes, as the
// server's own job (joinServerJob) does for everything else.
//
// os/exec cannot put a process in a job before it runs (Go's SysProcAttr
// has no PROC_THREAD_ATTRIBUTE_JOB_LIST): the command starts with
// CREATE_SUSPENDED, and Start assigns it to its job and only then resumes
// its first thread, so it cannot start a process outside the job.
//
// A job lives from contain to the kill of its scope (a cancel, a timeout,
// the session's end, the server's end), or, once its command's context has
// ended (the call is over), until it holds no process: what a finished
// command left running (`server &`) stays, as on Linux, until its scope is
// killed.

// jobs holds the Job Object of each contained command by its scope.
var jobs struct {
	mu sync.Mutex
	// byScope holds every job not yet closed.
	byScope map[Scope]*callJob
	// closed: the server is ending (KillAll); no job is made after it.
	closed bool
}

// callJob is one command's Job Object.
type callJob struct {
	handle windows.Handle
	// ended (guarded by jobs.mu) is set when the command's context ends:
	// the job is closed as soon as it holds no process.
	ended bool
}

// newJob makes a Job Object whose processes die when its last handle
// closes.
func newJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, err
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{
			LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
		},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, err
	}
	return job, nil
}

// jobPIDs is JOBOBJECT_BASIC_PROCESS_ID_LIST with room for maxJobPIDs
// ids, which x/sys/windows does not define.
type jobPIDs struct {
	Assigned uint32
	Listed   uint32
	IDs      [maxJobPIDs]uintptr
}

// maxJobPIDs bounds the ids read of a job: a job with more is taken as
// holding some, which is all active needs to know.
const maxJobPIDs = 64

// active is how many processes of the job still run; an unreadable job
// counts as holding one, so that it is not closed on a guess. The ids
// listed are checked one by one: Wine counts an ended process as the
// job's while a handle to it is open.
func (j *callJob) active() int {
	var list jobPIDs
	err := windows.QueryInformationJobObject(j.handle, windows.JobObjectBasicProcessIdList,
		uintptr(unsafe.Pointer(&list)), uint32(unsafe.Sizeof(list)), nil)
	if err != nil && err != windows.ERROR_MORE_DATA {
		return 1
	}
	n := 0
	for _, pid := range list.IDs[:min(list.Listed, maxJobPIDs)] {
		if Alive(int(pid)) {
			n++
		}
	}
	if n == 0 && list.Assigned > list.Listed {
		return 1
	}
	return n
}

// contain makes cmd (made by exec.CommandContext, not started) start
// suspended, labelled with env, with a Job Object of its own for scope s,
// which Start puts it in. The end of ctx closes the job once it is empty;
// a cancel kills the job. It reports false, leaving cmd as it was, when
// no job can be made.
func contain(ctx context.Context, cmd *exec.Cmd, env []string, s Scope) bool {
	if cmd.Err != nil {
		return false
	}
	handle, err := newJob()
	if err != nil {
		return false
	}
	j := &callJob{handle: handle}
	jobs.mu.Lock()
	if jobs.closed {
		jobs.mu.Unlock()
		windows.CloseHandle(handle)
		return false
	}
	if jobs.byScope == nil {
		jobs.byScope = map[Scope]*callJob{}
	}
	jobs.byScope[s] = j
	jobs.mu.Unlock()
	sweep()

	cmd.Env = s.Env(env)
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: creationFlags | windows.CREATE_SUSPENDED}
	cmd.Cancel = func() error {
		killJob(s)
		// The job holds the whole tree; the walk is for a system that
		// refused the assignment (Start then runs the command anyway).
		return KillGroup(cmd.Process.Pid)
	}
	context.AfterFunc(ctx, func() { commandEnded(s) })
	return true
}

// containLabelled gives a labelled command without a context (an MCP
// server) no job: it is not started through Start, so it must not start
// suspended. The server's job ends it with the server.
func containLabelled(*exec.Cmd, Scope) {}

// sweep closes the jobs of ended commands that hold no process any more:
// what they left running has ended by itself since, or the console host
// Windows gave the command (conhost.exe, in its job) was still on its way
// out when the command's context ended. Each new job sweeps the old ones,
// so a session holds no handle per past call.
func sweep() {
	jobs.mu.Lock()
	defer jobs.mu.Unlock()
	for s, j := range jobs.byScope {
		if j.ended && j.active() == 0 {
			windows.CloseHandle(j.handle)
			delete(jobs.byScope, s)
		}
	}
}

// commandEnded marks the end of scope s's command: its job is closed now
// when it is empty, else when its scope is killed or a later sweep finds
// it empty.
func commandEnded(s Scope) {
	jobs.mu.Lock()
	defer jobs.mu.Unlock()
	j := jobs.byScope[s]
	if j == nil {
		return
	}
	j.ended = true
	if j.active() == 0 {
		windows.CloseHandle(j.handle)
		delete(jobs.byScope, s)
	}
}

// killJob kills every process of scope s's job and closes the job; it
// returns how many processes the job held.
func killJob(s Scope) int {
	jobs.mu.Lock()
	j := jobs.byScope[s]
	delete(jobs.byScope, s)
	jobs.mu.Unlock()
	if j == nil {
		return 0
	}
	n := j.active()
	_ = windows.TerminateJobObject(j.handle, 1)
	windows.CloseHandle(j.handle)
	return n
}

// killGroups kills the jobs of the scopes that have one, and returns how
// many processes they held.
func killGroups(scopes []Scope) int {
	n := 0
	for _, s := range scopes {
		n += killJob(s)
	}
	return n
}

// killAllGroups kills every job of this server; no job is made after it.
func killAllGroups() {
	jobs.mu.Lock()
	jobs.closed = true
	all := jobs.byScope
	jobs.byScope = nil
	jobs.mu.Unlock()
	for _, j := range all {
		_ = windows.TerminateJobObject(j.handle, 1)
		windows.CloseHandle(j.handle)
	}
}

// jobOf returns the job of scope s, or nil.
func jobOf(s Scope) *callJob {
	jobs.mu.Lock()
	defer jobs.mu.Unlock()
	return jobs.byScope[s]
}

// resume puts a command started suspended (by contain) in its job, then
// lets it run. A job that refuses the process (a system without nested
// jobs, before Windows 8) leaves it to the tree kill and the server's job;
// a command that cannot be resumed is an error (the caller kills it).
func resume(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil || cmd.SysProcAttr.CreationFlags&windows.CREATE_SUSPENDED == 0 {
		return nil
	}
	pid := uint32(cmd.Process.Pid)
	if j := jobOf(ScopeOf(cmd)); j != nil {
		// Refused, the command runs without its job (see above).
		_ = assign(j.handle, pid)
	}
	return resumeThreads(pid)
}

// assign puts process pid in job.
func assign(job windows.Handle, pid uint32) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, pid)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	return windows.AssignProcessToJobObject(job, h)
}

// resumeThreads resumes the threads of process pid: a process created
// suspended has one, its first, whose handle os/exec has closed; it is
// found in a snapshot of the system's threads.
func resumeThreads(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("listing the threads of the new process %d: %w", pid, err)
	}
	defer windows.CloseHandle(snap)
	resumed := 0
	entry := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	for err = windows.Thread32First(snap, &entry); err == nil; err = windows.Thread32Next(snap, &entry) {
		if entry.OwnerProcessID != pid {
			continue
		}
		t, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, entry.ThreadID)
		if err != nil {
			return fmt.Errorf("opening the first thread of process %d: %w", pid, err)
		}
		_, err = windows.ResumeThread(t)
		windows.CloseHandle(t)
		if err != nil {
			return fmt.Errorf("resuming process %d: %w", pid, err)
		}
		resumed++
	}
	if resumed == 0 {
		return fmt.Errorf("the new process %d has no thread to resume", pid)
	}
	return nil
}
