// Package lifetime makes sure no process toolhost starts outlives what it was
// started for: a command ends with its call's cancel or timeout, and every
// process ends with the server, however the server ends.
//
// Process groups are not enough: a command can leave its group (setsid,
// a daemon's double fork) and a killed server kills nobody. So every process
// started through Prepare carries a label in its environment, a scope
// (TOOLHOST_PROCESS_SCOPE=<server>/<n>) that its descendants inherit through
// setsid and double forks alike. Ending a scope kills its process group and
// then every process whose environment holds the scope, found in /proc, in
// rounds until none is left (a process forking meanwhile is caught by the
// next round). Ending the server kills every process of its scopes.
//
// When the server is killed outright (kill -9), a watchdog does it: a copy of
// the toolhost binary started at the server's start (StartWatchdog), in a
// process group of its own, that waits for the end of a pipe only the
// server holds. The kernel closes that pipe however the server ends, and the
// watchdog then ends the server's processes. Direct children also get a
// parent-death signal (SIGKILL).
//
// A label cannot follow a process that replaces its environment (env -i, a
// daemon clearing it) before it leaves. So commands that run what a user or
// a model wrote (Reaped: Bash, background tasks, Monitor, hooks) and MCP
// servers (Label) start, where this process may manage cgroup v2, in a
// cgroup of their own, which no process can leave; there is no process
// between the server and the command (cgroup_linux.go).
//
// Elsewhere Reaped commands run below a reaper, a hidden mode of the same
// binary (MainIfAsked, ReapCommand), in two processes: a relay, which the
// server waits on and which ends as the command did (the same exit status
// or signal), and below it a watcher that is a child subreaper
// (PR_SET_CHILD_SUBREAPER): every orphan below it is re-parented to it,
// label or none, so it finds them all as its descendants in /proc. When
// its command ends it hands the status to the relay at once, then keeps
// watching while anything is below it: it kills the descendants without
// the command's scope, now and whenever one clears its environment later,
// and leaves the labelled ones to the scope's owner (a session ends what a
// finished command left running); it ends when nothing is below it. When
// it is stopped while its command runs — its stop pipe closes, on a
// cancel, a timeout, or the server's end however it ends — it kills
// everything below it. Neither carries a label, so a kill by scope or by
// the watchdog never ends them before they have done their work; the
// relay leads the command's process group (a kill of the group, what a
// finished command left, still ends the group) and the watcher has a
// group of its own, which such a kill leaves watching.
//
// The reaper is the fallback because cgroups need a delegated, writable
// hierarchy (cgroup v2 with cgroup.kill), which containers often lack; the
// label and the subreaper work for any user on any Linux, at the cost of
// two more starts of the binary per command. What the reaper leaves, and
// a cgroup does not: the watcher itself killed with SIGKILL before its
// work is done (its command dies with it, by a parent-death signal, but
// what the command left is then the session's to end by label).
package lifetime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Var is the environment variable that carries a process's scope.
const Var = "TOOLHOST_PROCESS_SCOPE"

// CgroupOffVar turns the cgroups off (TOOLHOST_CGROUPS=off): commands
// then run below the reaper, as where cgroups cannot be had.
const CgroupOffVar = "TOOLHOST_CGROUPS"

// server labels this process's scopes; scopes counts them.
var (
	server = newToken()
	scopes atomic.Uint64
)

// newToken draws the token from the runtime's generator, which the
// runtime seeds from the system's randomness as it starts: the token only
// has to differ between servers, and crypto/rand's system call and first
// use cost every start (toolhost --version included) a third of a
// millisecond of package initialisation.
func newToken() string {
	return fmt.Sprintf("%016x", rand.Uint64())
}

// Scope is the label of one command and its descendants.
type Scope string

// NewScope returns a scope of this server not used before.
func NewScope() Scope {
	return Scope(server + "/" + strconv.FormatUint(scopes.Add(1), 10))
}

// Env returns env (os.Environ() when nil) with the scope set, replacing a
// scope inherited from the server.
func (s Scope) Env(env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, Var+"=") {
			out = append(out, kv)
		}
	}
	return append(out, Var+"="+string(s))
}

// ScopeOf returns the scope of a prepared command ("" for another).
func ScopeOf(cmd *exec.Cmd) Scope {
	if len(cmd.Args) > 2 && cmd.Args[1] == ReapCommand {
		return Scope(cmd.Args[2])
	}
	for i := len(cmd.Env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(cmd.Env[i], Var+"="); ok {
			return Scope(v)
		}
	}
	return ""
}

// Label makes cmd run in a process group and a scope of its own, with env
// as its environment (os.Environ() when nil); its direct process dies with
// the server (a parent-death signal), and the watchdog is started if it is
// not running yet. For commands without a context; see Prepare.
// The command starts in a cgroup of its own where there are cgroups
// (cgroup_linux.go), which a kill of its scope ends whole, those that
// cleared their environment included: what an MCP server is started with.
func Label(cmd *exec.Cmd, env []string) Scope {
	s := label(cmd, env)
	containLabelled(cmd, s)
	return s
}

// label is Label without a cgroup.
func label(cmd *exec.Cmd, env []string) Scope {
	ensureWatchdog()
	s := NewScope()
	cmd.Env = s.Env(env)
	cmd.SysProcAttr = procAttr()
	return s
}

// Prepare is Label for a command made with exec.CommandContext that runs a
// program toolhost chose (ripgrep, git, a PDF converter), without a cgroup:
// the end of its context kills its process group and its scope.
func Prepare(cmd *exec.Cmd, env []string) Scope {
	s := label(cmd, env)
	cmd.Cancel = func() error {
		err := KillGroup(cmd.Process.Pid)
		s.Kill()
		return err
	}
	return s
}

// Command is exec.CommandContext made ready with Prepare.
func Command(ctx context.Context, env []string, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	Prepare(cmd, env)
	return cmd
}

// Reaped is Command for a command that runs whatever a user or a model
// wrote (a shell command), which also ends the descendants that cleared
// their environment and so left the scope: where there are cgroups, it
// starts in a group of its own (see contain), with no process between the
// server and the command; on Windows, in a Job Object of its own
// (job_windows.go); elsewhere it runs below a reaper (see reaperMain), a
// second start of this binary. The end of ctx marks the command's end: the
// caller cancels it once Wait has returned. The caller does not set
// ExtraFiles or SysProcAttr, and starts the command with Start, never
// cmd.Start (on Windows it is created suspended until Start has put it in
// its job). Without any of these (a program that never called MainIfAsked
// on a system without cgroups and jobs) it is Command.
func Reaped(ctx context.Context, env []string, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	ensureWatchdog()
	s := NewScope()
	if !contain(ctx, cmd, env, s) && !reap(ctx, cmd, env, s) {
		Prepare(cmd, env)
	}
	return cmd
}

// Start starts cmd (made by Reaped, Command or Prepare) and returns once
// it runs where it is to run: on Windows a command of Reaped is created
// suspended, put in its Job Object, and only then resumed, so that not
// even its first child is born outside the job. A command that started but
// cannot be resumed is killed and waited for, and the error returned.
func Start(cmd *exec.Cmd) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	if err := resume(cmd); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return err
	}
	return nil
}

// KillGroup kills every process of the process group pgid.
func KillGroup(pgid int) error {
	if pgid <= 0 {
		return nil
	}
	err := killPid(-pgid)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// Kill kills every process of the scope, wherever it went (another group, a
// new session, a daemon reparented to init), and returns how many it killed.
func (s Scope) Kill() int { return KillScopes([]Scope{s}) }

// KillScopes kills every process of the scopes: the cgroups of those that
// have one, then by label, in one pass over /proc per round.
func KillScopes(scopes []Scope) int {
	inGroups := killGroups(scopes)
	var labels [][]byte
	for _, s := range scopes {
		if s != "" {
			labels = append(labels, []byte(Var+"="+string(s)+"\x00"))
		}
	}
	if len(labels) == 0 {
		return inGroups
	}
	// A process of a killed group may still be on its way out when the
	// label is looked for: counted once, with its group.
	return max(inGroups, labelKills.kill(labels))
}

// KillAll kills every process of every scope of this server. The server
// calls it as it ends.
func KillAll() int {
	killAllGroups()
	return killScopes() + killBelowSelf()
}

// killScopes kills the processes of this server's scopes, once one was
// made. Until then nothing carries a scope of this server but commands
// started without this package, which inherit the server's own label and
// are waited for where they start (git config): the search through every
// process's environment, a third of a short session's CPU on a busy
// machine, is skipped.
func killScopes() int {
	if scopes.Load() == 0 {
		return 0
	}
	return KillServer(server)
}

// KillServer kills every process of every scope of the server token (the
// watchdog's work).
func KillServer(token string) int {
	if token == "" {
		return 0
	}
	return len(killMatching([][]byte{[]byte(Var + "=" + token + "/")}, true))
}

// maxRounds bounds the rounds of a kill: each round kills what it found,
// and a process that forked before its death is found by the next.
const maxRounds = 50

// settlePause is the pause before another round when the only processes
// left to judge are ones whose environment read empty: a process in the
// middle of an exec reads empty for a moment, then shows its label again.
// maxSettles bounds those pauses (a process started with an empty
// environment, env -i, reads empty for good).
const (
	settlePause = 2 * time.Millisecond
	maxSettles  = 25
)

// killMatching kills the processes whose environment holds one of labels
// (exact variables when prefix is false, a value's start when it is true)
// and returns the processes it killed. A round that kills nothing ends the
// kill, unless a live process of the user read an empty environment: it
// may be mid-exec (a command's child started just as the server was
// killed), so it is judged again.
func killMatching(labels [][]byte, prefix bool) []int {
	self := os.Getpid()
	others := func() []int {
		return slices.DeleteFunc(pids(), func(pid int) bool { return pid == self })
	}
	return killRounds(others, func(pid int) labelState { return labelOf(pid, labels, prefix) }, labelled, false)
}

// killRounds kills, in rounds, the processes of list() that judge finds in
// the state want, until a round kills none. A process judged unreadable
// (maybe mid-exec) is judged again after a pause, up to maxSettles times;
// then it is killed if killUnreadable is set, else left. It returns the
// processes it killed.
func killRounds(list func() []int, judge func(pid int) labelState, want labelState, killUnreadable bool) []int {
	// killed holds the processes signalled already: one that is dying
	// still reads its label for a moment, and is neither signalled nor
	// counted again.
	killed := map[int]bool{}
	kill := func(pid int) bool {
		if killPid(pid) != nil {
			return false
		}
		killed[pid] = true
		return true
	}
	settles := 0
	for round := 0; round < maxRounds; round++ {
		n := 0
		var unsure []int
		for _, pid := range list() {
			if killed[pid] {
				continue
			}
			switch judge(pid) {
			case want:
				if kill(pid) {
					n++
				}
			case unreadable:
				unsure = append(unsure, pid)
			}
		}
		switch {
		case n > 0:
		case len(unsure) == 0:
			return slices.Collect(maps.Keys(killed))
		case settles < maxSettles:
			settles++
			time.Sleep(settlePause)
		case !killUnreadable:
			return slices.Collect(maps.Keys(killed))
		default:
			// Empty for good: started with no environment at all.
			for _, pid := range unsure {
				kill(pid)
			}
			settles = 0
		}
	}
	return slices.Collect(maps.Keys(killed))
}

// pids lists the processes in /proc.
func pids() []int {
	f, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer f.Close()
	names, _ := f.Readdirnames(-1)
	out := make([]int, 0, len(names))
	for _, n := range names {
		if pid, err := strconv.Atoi(n); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// labelState is what a process's environment says of a kill's labels.
type labelState int

const (
	unlabelled labelState = iota
	labelled
	// unreadable: a live process of the user whose environment read empty,
	// which a process shows for a moment while it execs.
	unreadable
)

// readEnviron reads a process's environment (a variable for tests).
var readEnviron = func(pid int) ([]byte, error) {
	return os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
}

// labelOf reports whether pid's environment holds one of labels.
func labelOf(pid int, labels [][]byte, prefix bool) labelState {
	state, _ := labelIndex(pid, labels, prefix)
	return state
}

// labelIndex is labelOf that also says which label pid holds (the first,
// when it is labelled).
func labelIndex(pid int, labels [][]byte, prefix bool) (labelState, int) {
	env, err := readEnviron(pid)
	if err != nil {
		return unlabelled, -1 // gone, or another user's
	}
	if len(env) == 0 {
		if live, kernel := procState(pid); live && !kernel {
			return unreadable, -1
		}
		return unlabelled, -1 // a zombie runs nothing; a kernel thread has no environment
	}
	// A leading NUL anchors the label at a variable's start.
	env = append([]byte{0}, env...)
	if !prefix {
		env = append(env, 0)
	}
	for i, l := range labels {
		if bytes.Contains(env, append([]byte{0}, l...)) {
			return labelled, i
		}
	}
	return unlabelled, -1
}

// pfKthread is the kernel's flag of a kernel thread in /proc/<pid>/stat.
const pfKthread = 0x00200000

// procState reads whether pid is alive (not a zombie) and whether it is a
// kernel thread.
func procState(pid int) (live, kernel bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false, false
	}
	// The fields after the command name, which is in parentheses and may
	// hold anything: state, ppid, pgrp, session, tty, tpgid, flags.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return false, false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 7 || f[0] == "Z" || f[0] == "X" {
		return false, false
	}
	flags, _ := strconv.ParseUint(f[6], 10, 64)
	return true, flags&pfKthread != 0
}
