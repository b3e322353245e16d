package lifetime

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/toolhost/toolhost/internal/pathutil"
)

const reaperSupported = true

// reaperFailed is the reaper's exit status when it could not start the
// command (it says why on stderr), as a shell's for a command it cannot run.
const reaperFailed = 127

// reaperMain is the reaper: a relay the server waits on, and below it a
// watcher that is a child subreaper (PR_SET_CHILD_SUBREAPER) between the
// relay and one command. Every process below the watcher that is orphaned
// — a setsid or double-forked daemon, one that cleared its environment
// (env -i) included — is re-parented to it rather than to init, so it sees
// them all in /proc as its descendants, label or no label.
//
// When the command ends, the watcher hands its status to the relay, which
// ends as the command did (the same exit status, or the same signal), so
// the call ends at once. The watcher stays while anything is below it: it
// kills what does not carry the command's scope (those no later kill by
// label could find), now and whenever one clears its environment later
// (looked at after 1 ms, then at pauses doubling up to 1 s), and leaves
// the labelled rest to the scope's owner (a session ends what a finished
// command left running); it ends once nothing is below it. When it is
// told to stop while the command runs — the end of its stop pipe
// (descriptor 3): a cancel, a timeout, the server's end however it ends —
// or gets SIGTERM, SIGINT or SIGHUP, it kills every process below it and
// reaps them.
//
// The watcher leads a process group of its own, so that a kill of the
// command's group (what a finished command left) does not end the watch;
// the command joins the relay's group.
func reaperMain(args []string) int {
	if len(args) > 0 && args[0] == watchArg {
		return watchMain(args[1:])
	}
	if len(args) < 3 {
		fmt.Fprintln(os.Stderr, "toolhost reap: usage: toolhost "+ReapCommand+" SCOPE PATH ARGV0 ARGS...")
		return reaperFailed
	}
	status, statusW, err := os.Pipe()
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolhost reap: %v\n", err)
		return reaperFailed
	}
	// The stop pipe goes to the watcher, when there is one (descriptor 3
	// run by hand may be one the Go runtime opened itself).
	stopFd := ^uintptr(0)
	if isPipe(3) {
		stopFd = 3
	}
	watcher, err := syscall.ForkExec(pathutil.SelfExe(), append([]string{os.Args[0], ReapCommand, watchArg}, args...), &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{0, 1, 2, stopFd, statusW.Fd()},
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	})
	_ = statusW.Close()
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolhost reap: cannot start the watcher: %v\n", err)
		return reaperFailed
	}
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	go func() {
		for sig := range signals {
			_ = syscall.Kill(watcher, sig.(syscall.Signal))
		}
	}()
	var b [4]byte
	if _, err := io.ReadFull(status, b[:]); err != nil {
		// The watcher said why on stderr, or was killed.
		return reaperFailed
	}
	return exitAs(syscall.WaitStatus(binary.LittleEndian.Uint32(b[:])))
}

// watchArg marks the watcher's start by the relay.
const watchArg = "--watch"

// Watch pauses: the first look after the command ended, and the longest
// pause between two looks.
const (
	firstWatch = time.Millisecond
	maxWatch   = time.Second
)

// watchMain is the watcher (see reaperMain). Descriptor 3 is its stop
// pipe, 4 where it writes the command's wait status.
func watchMain(args []string) int {
	if len(args) < 3 {
		return reaperFailed
	}
	scope, path, argv := args[0], args[1], args[2:]
	var stopPipe, statusPipe *os.File
	if isPipe(3) {
		syscall.CloseOnExec(3)
		stopPipe = os.NewFile(3, "stop")
	}
	if isPipe(4) {
		syscall.CloseOnExec(4)
		statusPipe = os.NewFile(4, "status")
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "toolhost reap: cannot become a subreaper: %v\n", err)
	}
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	env := append(withoutLabel(os.Environ()), Var+"="+scope)
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Env:   env,
		Files: []uintptr{0, 1, 2},
		// The command dies with the watcher should the watcher be
		// killed; it joins the relay's group, which the server kills.
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true, Pgid: os.Getppid()},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolhost reap: cannot run %s: %v\n", path, err)
		return reaperFailed
	}
	stopped := make(chan struct{})
	if stopPipe != nil {
		go func() {
			_, _ = io.Copy(io.Discard, stopPipe)
			close(stopped)
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
	case <-stopped:
		r.killAll()
		<-ended
	case <-signals:
		r.killAll()
		<-ended
	}
	r.mu.Lock()
	ws, reaped := r.status, r.ended
	r.mu.Unlock()
	if statusPipe != nil && reaped {
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], uint32(ws))
		_, _ = statusPipe.Write(b[:])
		_ = statusPipe.Close()
	}
	r.watch([]byte(Var+"="+scope+"\x00"), signals)
	return 0
}

func isPipe(fd int) bool {
	var st unix.Stat_t
	return unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFIFO
}

// watch kills what is below the watcher without label, now and as it
// appears, and ends once nothing is below it. A signal kills everything
// below it. The stop pipe means nothing now: it closes as the call
// ends, and the labelled rest is the session's.
func (r *reaping) watch(label []byte, signals <-chan os.Signal) {
	labels := [][]byte{label}
	pause := firstWatch
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
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
		killRounds(descendants, func(pid int) labelState { return labelOf(pid, labels, false) }, unlabelled, true)
		timer.Reset(pause)
		select {
		case <-timer.C:
		case <-signals:
			r.killAll()
			return
		}
		pause = min(2*pause, maxWatch)
	}
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

// exitAs ends the relay as its command ended: with its exit status, or
// by the signal that killed it.
func exitAs(ws syscall.WaitStatus) int {
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
