package lifetime

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

const reaperSupported = true

// reaperFailed is the reaper's exit status when it could not start the
// command (it says why on stderr), as a shell's for a command it cannot run.
const reaperFailed = 127

// reaperMain is the reaper: a child subreaper (PR_SET_CHILD_SUBREAPER)
// between the server and one command. Every process below it that is
// orphaned — a setsid or double-forked daemon, one that cleared its
// environment (env -i) included — is re-parented to it rather than to init,
// so it sees them all in /proc as its descendants, label or no label.
//
// When the command ends, it kills the descendants that do not carry the
// command's scope (those no later kill by label could find) and leaves the
// others to the scope's owner (a session ends what a finished command left
// running). When it is told to stop — the end of its stop pipe (descriptor
// 3): a cancel, a timeout, the server's end however it ends — or gets
// SIGTERM, SIGINT or SIGHUP, it kills every process below it and reaps
// them. Either way it then ends as the command did: the same exit status,
// or the same signal.
func reaperMain(args []string) int {
	if len(args) < 3 {
		fmt.Fprintln(os.Stderr, "toolhost reap: usage: toolhost "+ReapCommand+" SCOPE PATH ARGV0 ARGS...")
		return reaperFailed
	}
	scope, path, argv := args[0], args[1], args[2:]
	// The stop pipe; none when descriptor 3 is not a pipe (run by hand:
	// the descriptor may then be one the Go runtime opened itself).
	var stopPipe *os.File
	var st unix.Stat_t
	if unix.Fstat(3, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFIFO {
		syscall.CloseOnExec(3)
		stopPipe = os.NewFile(3, "stop")
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "toolhost reap: cannot become a subreaper: %v\n", err)
	}
	stop := make(chan struct{}, 1)
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	go func() {
		<-signals
		stop <- struct{}{}
	}()
	env := append(withoutLabel(os.Environ()), Var+"="+scope)
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Env:   env,
		Files: []uintptr{0, 1, 2},
		// The command dies with the reaper should the reaper be killed.
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolhost reap: cannot run %s: %v\n", path, err)
		return reaperFailed
	}
	if stopPipe != nil {
		go func() {
			_, _ = io.Copy(io.Discard, stopPipe)
			stop <- struct{}{}
		}()
	}
	r := &reaping{command: pid}
	ended := make(chan struct{})
	go func() {
		// Reaps orphans as they come while the command runs.
		for !r.commandEnded() {
			if r.wait(0) == syscall.ECHILD {
				break
			}
		}
		close(ended)
	}()
	select {
	case <-ended:
		r.endUnlabelled([]byte(Var + "=" + scope + "\x00"))
	case <-stop:
		r.killAll()
		<-ended
	}
	return r.exit()
}

// reaping tracks the reaper's children and the command's status.
type reaping struct {
	command int
	// mu guards status and ended: the status of the command once reaped.
	mu     sync.Mutex
	status syscall.WaitStatus
	ended  bool
}

func (r *reaping) commandEnded() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ended
}

// wait reaps one child (blocking unless options say WNOHANG) and records
// the command's status when it was the command. It returns the error of
// wait4, or errNone when nothing was waiting to be reaped.
func (r *reaping) wait(options int) error {
	var ws syscall.WaitStatus
	pid, err := syscall.Wait4(-1, &ws, options, nil)
	if errors.Is(err, syscall.EINTR) {
		return nil
	}
	if err != nil {
		return err
	}
	if pid == 0 {
		return errNone
	}
	if pid == r.command {
		r.mu.Lock()
		r.status, r.ended = ws, true
		r.mu.Unlock()
	}
	return nil
}

var errNone = errors.New("no child to reap")

// exit ends the reaper as its command ended.
func (r *reaping) exit() int {
	r.mu.Lock()
	ws, ended := r.status, r.ended
	r.mu.Unlock()
	if !ended {
		return reaperFailed
	}
	if ws.Signaled() {
		raise(ws.Signal())
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// raise ends this process by sig, as the command was: with the default
// action restored (the Go runtime handles some signals itself) and no core
// file (the command's own core, if any, was written already).
func raise(sig syscall.Signal) {
	_ = syscall.Setrlimit(syscall.RLIMIT_CORE, &syscall.Rlimit{})
	signal.Reset()
	// struct sigaction with every field zero: SIG_DFL, no flags.
	var act [4]uint64
	_, _, _ = syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&act)), 0, 8, 0, 0)
	// Sent to this very thread, with the signal unblocked here: delivered
	// as the call returns, before the caller could exit otherwise (a
	// signal to the process may wait for another thread to wake).
	runtime.LockOSThread()
	var set unix.Sigset_t
	set.Val[(int(sig)-1)/64] |= 1 << ((uint(sig) - 1) % 64)
	_ = unix.PthreadSigmask(unix.SIG_UNBLOCK, &set, nil)
	// A signal whose default is not to end: the caller exits as a shell
	// reports it.
	_ = unix.Tgkill(os.Getpid(), unix.Gettid(), unix.Signal(sig))
}

// killAll kills every process below the reaper and reaps its children
// until none is left: a process that forked before its death leaves its
// child to the reaper, which the next round kills.
func (r *reaping) killAll() {
	for {
		below := descendants()
		if len(below) == 0 {
			return
		}
		for _, pid := range below {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		reaped := false
		for r.wait(syscall.WNOHANG) == nil {
			reaped = true
		}
		if !reaped {
			_ = r.wait(0)
		}
	}
}

// endUnlabelled kills the processes below the reaper whose environment
// lacks label: a command's descendants that replaced their environment,
// which no kill by scope could find once the reaper is gone. A process
// whose environment reads empty is read again for a while (it may be in
// the middle of an exec) and killed when it still reads empty (env -i).
// Then the reaper reaps what it can; what it leaves goes to init, dead.
func (r *reaping) endUnlabelled(label []byte) {
	// No child left, then nothing below: an orphan would be a child.
	for {
		err := r.wait(syscall.WNOHANG)
		if errors.Is(err, syscall.ECHILD) {
			return
		}
		if err != nil {
			break
		}
	}
	labels := [][]byte{label}
	killRounds(descendants, func(pid int) labelState { return labelOf(pid, labels, false) }, unlabelled, true)
	for r.wait(syscall.WNOHANG) == nil {
	}
}

// descendants lists the processes below this one, from /proc.
func descendants() []int {
	children := map[int][]int{}
	for _, pid := range pids() {
		if ppid := parentOf(pid); ppid > 0 {
			children[ppid] = append(children[ppid], pid)
		}
	}
	var out []int
	queue := []int{os.Getpid()}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// parentOf reads pid's parent from /proc (0 when it is gone).
func parentOf(pid int) int {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// After the command name, in parentheses that may hold anything:
	// state, ppid.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(string(f[1]))
	return ppid
}
