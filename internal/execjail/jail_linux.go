package execjail

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Rights a rule grants: folders are read and listed, files read, system
// folders and the program also run.
const (
	readDir   = llsys.AccessFSReadFile | llsys.AccessFSReadDir
	readFile  = llsys.AccessFSReadFile
	runDir    = readDir | llsys.AccessFSExecute
	runFile   = readFile | llsys.AccessFSExecute
	scopedAll = llsys.ScopeAbstractUnixSocket | llsys.ScopeSignal
	netTCP    = llsys.AccessNetBindTCP | llsys.AccessNetConnectTCP
)

// handledFS is every filesystem right the kernel's ABI knows, up to ABI 5
// (what the rules above were written against): a right not handled is a
// right not restricted.
func handledFS(abi int) uint64 {
	switch {
	case abi >= 5:
		return 1<<16 - 1
	case abi >= 3:
		return 1<<15 - 1
	case abi == 2:
		return 1<<14 - 1
	default:
		return 1<<13 - 1
	}
}

// abiVersion is the kernel's Landlock ABI, or why there is none.
func abiVersion() (int, error) {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		if err == nil {
			err = errors.New("ABI version 0")
		}
		return 0, fmt.Errorf("the kernel offers no Landlock (%v); it needs Linux 5.13 or later with Landlock enabled (CONFIG_SECURITY_LANDLOCK, and landlock in the lsm= boot list)", err)
	}
	return abi, nil
}

// ruleset is a Landlock ruleset ready to be enforced.
type ruleset struct{ fd int }

func (r *ruleset) close() { _ = syscall.Close(r.fd) }

// newRuleset makes the ruleset of a jail: read-only beneath r, the system
// folders and files, and program (when set) to run.
func newRuleset(r Readable, program string) (*ruleset, error) {
	abi, err := abiVersion()
	if err != nil {
		return nil, err
	}
	attr := llsys.RulesetAttr{HandledAccessFS: handledFS(abi)}
	if abi >= 4 {
		attr.HandledAccessNet = netTCP
	}
	if abi >= 6 {
		attr.Scoped = scopedAll
	}
	fd, err := llsys.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		return nil, fmt.Errorf("the kernel refused a Landlock ruleset: %v", err)
	}
	rs := &ruleset{fd: fd}
	add := func(dirFD int, rights uint64) error {
		return llsys.LandlockAddPathBeneathRule(fd, &llsys.PathBeneathAttr{AllowedAccess: rights & attr.HandledAccessFS, ParentFd: dirFD}, 0)
	}
	// addPath adds a rule for a path opened here; a missing one is skipped
	// unless required.
	addPath := func(path string, rights uint64, required bool) error {
		pfd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			if !required && errors.Is(err, os.ErrNotExist) {
				return nil
			}
			return fmt.Errorf("opening %s for the jail: %w", path, err)
		}
		defer unix.Close(pfd)
		if err := add(pfd, rights); err != nil {
			return fmt.Errorf("a Landlock rule for %s: %w", path, err)
		}
		return nil
	}
	fail := func(err error) (*ruleset, error) {
		rs.close()
		return nil, err
	}
	for _, d := range r.Dirs {
		if err := add(int(d.Fd()), readDir); err != nil {
			return fail(fmt.Errorf("a Landlock rule for %s: %w", d.Name(), err))
		}
	}
	for _, p := range r.Paths {
		if err := addPath(p, readDir, false); err != nil {
			return fail(err)
		}
	}
	for _, p := range r.Files {
		if err := addPath(p, readFile, false); err != nil {
			return fail(err)
		}
	}
	for _, p := range systemDirs {
		if err := addPath(p, runDir, false); err != nil {
			return fail(err)
		}
	}
	for _, p := range systemFiles {
		if err := addPath(p, readFile, false); err != nil {
			return fail(err)
		}
	}
	if program != "" {
		if err := addPath(program, runFile, true); err != nil {
			return fail(err)
		}
	}
	return rs, nil
}

// lockThreadForGood locks the calling goroutine to its thread and never
// unlocks it: the runtime ends the thread when the goroutine returns,
// restriction and all.
func lockThreadForGood() { runtime.LockOSThread() }

// restrictThread restricts the calling thread, and only it, by rs.
func restrictThread(rs *ruleset) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %v", err)
	}
	if err := llsys.LandlockRestrictSelf(rs.fd, 0); err != nil {
		return fmt.Errorf("the kernel refused the Landlock restriction: %v", err)
	}
	return nil
}

// holdWhileRunning returns what keeps the starting thread alive while the
// process cmd is about to start runs, when it has a parent-death signal:
// the kernel sends that signal when the thread that started the process
// ends, not the server, and the restricted thread ends once it returns.
// It waits on a pidfd of the process (polled, never reaped: the caller's
// Wait reaps). nil when there is nothing to hold.
func holdWhileRunning(cmd *exec.Cmd) func() {
	if cmd.SysProcAttr == nil || cmd.SysProcAttr.Pdeathsig == 0 {
		return nil
	}
	pidfd := -1
	sys := *cmd.SysProcAttr
	sys.PidFD = &pidfd
	cmd.SysProcAttr = &sys
	return func() {
		if pidfd < 0 {
			return // not started
		}
		defer unix.Close(pidfd)
		fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
		for {
			if _, err := unix.Poll(fds, -1); !errors.Is(err, unix.EINTR) {
				return
			}
		}
	}
}

// isAccessDenied: the kernel refused an open.
func isAccessDenied(err error) bool { return errors.Is(err, syscall.EACCES) }
