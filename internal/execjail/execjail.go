// Package execjail runs a program read-only jailed, by the kernel, to a few
// folders: a hidden subcommand of the toolhost binary itself restricts its
// own process with Landlock and then execs the program, which inherits the
// restriction. Grep runs ripgrep over a folder this way.
//
// Landlock rules hold on the folders as opened when the restriction is made,
// not on their names: a folder below them swapped for a link to elsewhere
// afterwards leads, for the kernel, outside the allowed hierarchy, and every
// open there fails with EACCES. There is no window between a check and a
// use, because there is no check in user space at all. A caller that has
// opened a folder through a jail of its own hands it over open (Readable.
// Dirs), and the rule is that very folder: not even its path is resolved
// again.
//
// Besides the folders it is given, the jailed program may read (and map and
// run) what running a dynamically linked binary needs: the system folders
// /usr, /lib, /lib64, /lib32, /bin and /sbin, read-only, the dynamic
// loader's cache /etc/ld.so.cache, and the program file itself. Nothing else:
// no home folder, no other part of /etc, no /tmp, no /proc. It cannot write
// anywhere, make network connections (ABI 4 and later) or signal processes
// outside its domain (ABI 6 and later).
//
// The helper is the binary that called MainIfAsked at its start (toolhost,
// or a test binary whose TestMain does): the decision which executable
// serves it is made there, once. A program that never called it has no
// helper, and Available says so.
package execjail

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"github.com/toolhost/toolhost/internal/pathutil"
)

// Command is the hidden subcommand that runs the helper:
//
//	toolhost __jail-exec [--read DIR]... [--read-file FILE]... [--read-fd N]... -- PROGRAM ARGS...
//	toolhost __jail-exec --probe [--read-fd N]
//
// --read-fd names a folder the helper inherited open as descriptor N: the
// rule holds on exactly that folder, whatever its path leads to by then.
// The program starts in the first such folder.
const Command = "__jail-exec"

// ExitFailed is the helper's exit status when it could not jail itself or
// start the program (it then says why on stderr, prefixed with
// "toolhost jail:"). It is not one of the statuses ripgrep uses (0, 1, 2).
const ExitFailed = 125

// OffVar names the environment variable that turns the jail off: with
// TOOLHOST_LANDLOCK=off the helper refuses to run, as on a kernel without
// Landlock, and callers take their fallback.
const OffVar = "TOOLHOST_LANDLOCK"

// systemDirs are the read-only system folders a jailed program may read and
// run from: what exec of a dynamically linked binary needs (the loader and
// the libraries). Missing ones are skipped.
var systemDirs = []string{"/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin"}

// systemFiles are single files the dynamic loader reads.
var systemFiles = []string{"/etc/ld.so.cache"}

// helper is the argv prefix that runs the helper; nil when this program
// cannot serve it.
var helper struct {
	mu   sync.Mutex
	argv []string
}

// MainIfAsked is the first thing main (or a test binary's TestMain) does:
// when the program was started as the helper (its first argument is
// Command) it runs the helper and never returns; otherwise it records that
// this executable serves the helper, for CommandContext and Probe.
func MainIfAsked() {
	if len(os.Args) >= 2 && os.Args[1] == Command {
		os.Exit(helperMain(os.Args[2:]))
	}
	exe := pathutil.SelfExe()
	if exe == "" {
		return
	}
	helper.mu.Lock()
	helper.argv = []string{exe, Command}
	helper.mu.Unlock()
}

func helperArgv() []string {
	helper.mu.Lock()
	defer helper.mu.Unlock()
	return helper.argv
}

// Readable is what a jailed program may read below.
type Readable struct {
	// Dirs are folders already open (through a jail of the caller's): the
	// helper inherits them and the rules hold on exactly these folders,
	// with no path resolved again. The caller keeps them open until the
	// command has started.
	Dirs []*os.File
	// Paths are folders named by path, resolved when the helper starts.
	Paths []string
	// Files are single files the program may read (not list), named by
	// path: the ignore files above a searched folder, which ripgrep reads.
	// Missing ones are skipped.
	Files []string
}

// CommandContext returns a command that runs program with args under the
// jail, read-only beneath what r names. The caller sets its stdio (not
// ExtraFiles), starts it and waits for it as for any exec.Cmd; an exit
// status of ExitFailed means the jail could not be set up (stderr says why)
// and the program did not run.
func CommandContext(ctx context.Context, r Readable, program string, args ...string) (*exec.Cmd, error) {
	h := helperArgv()
	if h == nil {
		return nil, ErrNoHelper
	}
	argv := append([]string(nil), h[1:]...)
	for _, d := range r.Paths {
		argv = append(argv, "--read", d)
	}
	for _, f := range r.Files {
		argv = append(argv, "--read-file", f)
	}
	for i := range r.Dirs {
		// ExtraFiles[i] is the child's descriptor 3+i.
		argv = append(argv, "--read-fd", strconv.Itoa(3+i))
	}
	argv = append(argv, "--", program)
	argv = append(argv, args...)
	cmd := exec.CommandContext(ctx, h[0], argv...)
	cmd.ExtraFiles = r.Dirs
	return cmd, nil
}

// ErrNoHelper: the program never called MainIfAsked, so it cannot serve
// the helper.
var ErrNoHelper = errors.New("this program cannot run the jail helper (it does not call execjail.MainIfAsked)")

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

// Check is Probe, made once per process. The probe outlives a caller that
// is cancelled meanwhile: its answer is kept for every later caller.
func Check(ctx context.Context) Status {
	checkOnce.Do(func() { checked = Probe(context.WithoutCancel(ctx)) })
	return checked
}

// Probe finds out whether programs can be jailed here: it runs the helper
// in probe mode, which restricts itself and then verifies that a folder it
// was not given ("/") is really refused by the kernel. A kernel without
// Landlock, a helper that cannot start or a jail that does not hold is an
// error.
func Probe(ctx context.Context) Status {
	h := helperArgv()
	if h == nil {
		return Status{Err: ErrNoHelper}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	// A folder handed over open, as searches hand theirs.
	dir, err := os.Open(os.TempDir())
	if err != nil {
		return Status{Err: fmt.Errorf("opening a folder to probe the jail with: %w", err)}
	}
	defer dir.Close()
	cmd := exec.CommandContext(ctx, h[0], append(append([]string(nil), h[1:]...), "--probe", "--read-fd", "3")...)
	cmd.ExtraFiles = []*os.File{dir}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(stderr.String()), "toolhost jail:"))
		if msg == "" {
			msg = err.Error()
		}
		return Status{Err: errors.New(msg)}
	}
	abi, err := strconv.Atoi(strings.TrimSpace(stdout.String()))
	if err != nil {
		return Status{Err: fmt.Errorf("the jail helper answered %q to a probe", stdout.String())}
	}
	return Status{ABI: abi}
}

// helperMain runs the helper and returns its exit status (it only returns
// on failure: on success the program replaces it).
func helperMain(args []string) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "toolhost jail: "+format+"\n", a...)
		return ExitFailed
	}
	var readDirs, fdDirs, readFiles, program []string
	var readFDs []int
	probe := false
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--probe":
			probe = true
		case "--read":
			if i+1 == len(args) {
				return fail("--read needs a folder")
			}
			readDirs = append(readDirs, args[i+1])
			i++
		case "--read-file":
			if i+1 == len(args) {
				return fail("--read-file needs a file")
			}
			readFiles = append(readFiles, args[i+1])
			i++
		case "--read-fd":
			fd := -1
			if i+1 < len(args) {
				fd, _ = strconv.Atoi(args[i+1])
			}
			if fd < 3 {
				return fail("--read-fd needs an inherited descriptor (3 or more)")
			}
			readFDs = append(readFDs, fd)
			// The kernel resolves this to the very folder open there.
			fdDirs = append(fdDirs, "/proc/self/fd/"+strconv.Itoa(fd))
			i++
		case "--":
			program = args[i+1:]
			i = len(args)
		default:
			return fail("unknown argument %q", args[i])
		}
	}
	if !probe && len(program) == 0 {
		return fail("no program to run (give it after --)")
	}
	var exe string
	if !probe {
		var err error
		if exe, err = exec.LookPath(program[0]); err != nil {
			return fail("%v", err)
		}
	}
	abi, err := restrict(readDirs, fdDirs, readFiles, exe)
	if err != nil {
		return fail("%v", err)
	}
	if probe {
		// The jail must hold: "/" was not given, so reading it is refused.
		f, err := os.Open("/")
		if err == nil {
			f.Close()
			return fail("Landlock did not restrict the process (it could still read /)")
		}
		if !errors.Is(err, syscall.EACCES) {
			return fail("checking the restriction: %v", err)
		}
		fmt.Println(abi)
		return 0
	}
	// The program starts in the first folder handed over (ripgrep matches
	// globs relative to where it runs), and does not need them open: the
	// rules hold on the folders themselves.
	if len(readFDs) > 0 {
		if err := enterFD(readFDs[0]); err != nil {
			return fail("entering the folder to search: %v", err)
		}
	}
	for _, fd := range readFDs {
		closeFD(fd)
	}
	err = syscall.Exec(exe, program, os.Environ())
	return fail("running %s: %v", exe, err)
}

// restrict jails the calling process (every thread) read-only beneath
// readDirs, fdDirs (the inherited folders, which must be there), to the
// files readFiles, the system folders and exe (when set), and returns the
// kernel's Landlock ABI version.
func restrict(readDirs, fdDirs, readFiles []string, exe string) (int, error) {
	if v := os.Getenv(OffVar); strings.EqualFold(v, "off") {
		return 0, fmt.Errorf("the jail is turned off (%s=%s)", OffVar, v)
	}
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		if err == nil {
			err = errors.New("ABI version 0")
		}
		return 0, fmt.Errorf("the kernel offers no Landlock (%v); it needs Linux 5.13 or later with Landlock enabled (CONFIG_SECURITY_LANDLOCK, and landlock in the lsm= boot list)", err)
	}
	rules := []landlock.Rule{
		// A folder missing now cannot be read anyway (an additional
		// directory that is gone); it must not fail the whole jail.
		landlock.PathAccess(llsys.AccessFSReadFile|llsys.AccessFSReadDir, readDirs...).IgnoreIfMissing(),
		landlock.PathAccess(llsys.AccessFSReadFile|llsys.AccessFSReadDir, fdDirs...),
		landlock.PathAccess(llsys.AccessFSReadFile, readFiles...).IgnoreIfMissing(),
		landlock.RODirs(systemDirs...).IgnoreIfMissing(),
		landlock.PathAccess(llsys.AccessFSReadFile, systemFiles...).IgnoreIfMissing(),
	}
	if exe != "" {
		rules = append(rules, landlock.ROFiles(exe))
	}
	// ABI 1 restricts every read (checked above, so best effort never
	// means "no restriction"); later ABIs add writes' truncation, the
	// network and signals, used when the kernel has them.
	if err := landlock.V7.BestEffort().Restrict(rules...); err != nil {
		return 0, fmt.Errorf("the kernel refused the Landlock restriction: %v", err)
	}
	return abi, nil
}
