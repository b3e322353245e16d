// Package execjail runs a program read-only jailed, by the kernel, to a few
// folders. Grep runs ripgrep over a folder this way.
//
// The jail is Landlock, set up in this process on one OS thread only: a
// goroutine locks its thread, restricts that thread (no_new_privs and
// landlock_restrict_self without the all-threads flag), starts the program
// from it, which inherits the restriction across fork and exec, and then
// ends with the thread still locked, so the Go runtime discards the
// restricted thread. The rest of the server is never restricted, and no
// helper process is started: a jailed start costs a thread and a few
// syscalls, not a second start of the toolhost binary.
//
// Landlock rules hold on the folders as opened when the ruleset is made,
// not on their names: a folder below them swapped for a link to elsewhere
// afterwards leads, for the kernel, outside the allowed hierarchy, and every
// open there fails with EACCES. There is no window between a check and a
// use, because there is no check in user space at all. A caller that has
// opened a folder through a jail of its own hands it over open
// (Readable.Dirs), and the rule is made from that very descriptor: not even
// its path is resolved again.
//
// Besides the folders it is given, the jailed program may read (and map and
// run) what running a dynamically linked binary needs: the system folders
// /usr, /lib, /lib64, /lib32, /bin and /sbin, read-only, the dynamic
// loader's cache /etc/ld.so.cache, and the program file itself. Nothing else:
// no home folder, no other part of /etc, no /tmp, no /proc. It cannot write
// anywhere, make TCP connections (ABI 4 and later) or signal processes
// outside its domain (ABI 6 and later).
//
// The platform seam is restrictThread and abiVersion (jail_linux.go); other
// systems have no jail (jail_other.go) and callers take their fallback.
package execjail

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// OffVar names the environment variable that turns the jail off: with
// TOOLHOST_LANDLOCK=off programs are not jailed, as on a kernel without
// Landlock, and callers take their fallback.
const OffVar = "TOOLHOST_LANDLOCK"

// systemDirs are the read-only system folders a jailed program may read and
// run from: what exec of a dynamically linked binary needs (the loader and
// the libraries). Missing ones are skipped.
var systemDirs = []string{"/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin"}

// systemFiles are single files the dynamic loader reads.
var systemFiles = []string{"/etc/ld.so.cache"}

// Readable is what a jailed program may read below.
type Readable struct {
	// Dirs are folders already open (through a jail of the caller's): the
	// rules are made from these descriptors, with no path resolved again.
	// The program starts in the first one. The caller keeps them open
	// until the command has started.
	Dirs []*os.File
	// Paths are folders named by path, resolved when the command starts.
	// Missing ones are skipped.
	Paths []string
	// Files are single files the program may read (not list), named by
	// path: the ignore files above a searched folder, which ripgrep reads.
	// Missing ones are skipped.
	Files []string
}

// Cmd is a command that starts jailed. Use Start (or Run) of Cmd itself:
// those of the embedded exec.Cmd would start the program unjailed.
type Cmd struct {
	*exec.Cmd
	readable Readable
}

// CommandContext returns a command that runs program with args under the
// jail, read-only beneath what r names. The caller sets its stdio (not
// ExtraFiles or Dir: it starts in r.Dirs[0] when given), then starts it
// with Start and waits for it as for any exec.Cmd.
func CommandContext(ctx context.Context, r Readable, program string, args ...string) *Cmd {
	return &Cmd{Cmd: exec.CommandContext(ctx, program, args...), readable: r}
}

// Error is a jail that could not be set up: the program did not run.
type Error struct{ Reason string }

func (e *Error) Error() string { return "jailing the program: " + e.Reason }

// Start starts the program on a thread restricted to what the command may
// read; the program inherits the restriction. A jail that cannot be set up
// is an *Error and nothing runs.
func (c *Cmd) Start() error {
	if c.Cmd.Err != nil {
		return c.Cmd.Err
	}
	if err := turnedOff(); err != nil {
		return &Error{Reason: err.Error()}
	}
	if len(c.readable.Dirs) > 0 {
		// Entered by the child before it runs the program: the very
		// folder open here, not a path resolved again (the child's copy
		// of the descriptor table holds the same number).
		c.Dir = "/proc/self/fd/" + strconv.Itoa(int(c.readable.Dirs[0].Fd()))
	}
	rs, err := newRuleset(c.readable, c.Path)
	if err != nil {
		return &Error{Reason: err.Error()}
	}
	defer rs.close()
	// exec opens /dev/null for a stream left unset while it starts, on the
	// restricted thread, where the jail refuses it: opened here instead.
	if c.Stdin == nil || c.Stdout == nil || c.Stderr == nil {
		null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
		if err != nil {
			return err
		}
		defer null.Close()
		if c.Stdin == nil {
			c.Stdin = null
		}
		if c.Stdout == nil {
			c.Stdout = null
		}
		if c.Stderr == nil {
			c.Stderr = null
		}
	}
	var jailErr error
	hold := holdWhileRunning(c.Cmd)
	err = onRestrictedThread(rs, func() error { return c.Cmd.Start() }, hold, &jailErr)
	if jailErr != nil {
		return &Error{Reason: jailErr.Error()}
	}
	return err
}

// Run starts the command jailed and waits for it.
func (c *Cmd) Run() error {
	if err := c.Start(); err != nil {
		return err
	}
	return c.Wait()
}

// onRestrictedThread runs f on an OS thread of its own restricted by rs,
// and returns f's error; then, on the same thread, hold (nil: nothing)
// before the thread ends. A restriction that failed is stored in jailErr
// and f does not run. The thread is never given back to the runtime: the
// goroutine ends locked to it, and the runtime ends the thread.
func onRestrictedThread(rs *ruleset, f func() error, hold func(), jailErr *error) error {
	done := make(chan error, 1)
	go func() {
		lockThreadForGood()
		if err := restrictThread(rs); err != nil {
			*jailErr = err
			done <- nil
			return
		}
		done <- f()
		if hold != nil {
			hold()
		}
	}()
	return <-done
}

// turnedOff says why the jail is off by the environment, or nil.
func turnedOff() error {
	if v := os.Getenv(OffVar); strings.EqualFold(v, "off") {
		return fmt.Errorf("the jail is turned off (%s=%s)", OffVar, v)
	}
	return nil
}

// Status is the outcome of Probe: whether programs run jailed, and on which
// Landlock ABI.
type Status struct {
	// ABI is the kernel's Landlock ABI version (0 when there is none).
	ABI int
	// Err says why programs cannot be jailed; nil when they can.
	Err error
}

func (s Status) String() string {
	if s.Err != nil {
		return "no Landlock jail: " + s.Err.Error()
	}
	return fmt.Sprintf("Landlock ABI %d", s.ABI)
}

var (
	checkOnce sync.Once
	checked   Status
)

// Check is Probe, made once per process.
func Check(ctx context.Context) Status {
	checkOnce.Do(func() { checked = Probe(context.WithoutCancel(ctx)) })
	return checked
}

// Probe finds out whether programs can be jailed here: it restricts a
// thread of its own to a folder handed over open, as searches hand theirs,
// and verifies there that a folder it was not given ("/") is really
// refused by the kernel. A kernel without Landlock or a jail that does not
// hold is an error. It takes no time worth a context; ctx is for symmetry
// with callers that pass theirs.
func Probe(context.Context) Status {
	if err := turnedOff(); err != nil {
		return Status{Err: err}
	}
	abi, err := abiVersion()
	if err != nil {
		return Status{Err: err}
	}
	dir, err := os.Open(os.TempDir())
	if err != nil {
		return Status{Err: fmt.Errorf("opening a folder to probe the jail with: %w", err)}
	}
	defer dir.Close()
	rs, err := newRuleset(Readable{Dirs: []*os.File{dir}}, "")
	if err != nil {
		return Status{Err: err}
	}
	defer rs.close()
	var jailErr error
	err = onRestrictedThread(rs, func() error {
		f, err := os.Open("/")
		if err == nil {
			f.Close()
			return errors.New("the Landlock restriction did not hold (the thread could still read /)")
		}
		if !isAccessDenied(err) {
			return fmt.Errorf("checking the restriction: %w", err)
		}
		return nil
	}, nil, &jailErr)
	if jailErr != nil {
		return Status{Err: jailErr}
	}
	if err != nil {
		return Status{Err: err}
	}
	return Status{ABI: abi}
}
