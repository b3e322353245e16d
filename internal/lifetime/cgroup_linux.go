package lifetime

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// Commands that run what a user or a model wrote (Reaped) and MCP servers
// (Label) start, where the kernel lets this process manage cgroup v2
// (a delegated hierarchy, or root), directly into a cgroup of their own
// (clone3 with CLONE_INTO_CGROUP, so not even the first fork escapes it).
// A process cannot leave its cgroup by setsid, a double fork or env -i:
// the group is the whole of what a command started, found by the kernel,
// and cgroup.kill ends it at once. No helper process is started; the cost
// per command is a mkdir, an open and, at its end, a read and an rmdir.
//
// The groups live below one folder per server, toolhost-<server token>,
// inside the server's own cgroup, made with the first group and removed
// with the last; the watchdog kills and removes that folder should the
// server be killed outright.

// cgroupWatchEvery bounds the pause between two looks at what a finished
// command left running; the pauses start at a millisecond and double.
const cgroupWatchEvery = time.Second

// cgroupRemoveWait bounds the wait for a killed group to empty before its
// folder is removed.
const cgroupRemoveWait = 2 * time.Second

// cgroups is this server's cgroup folder and its groups.
var cgroups struct {
	// asked is set once anything looked for the folder: a server that
	// started no command has none to kill, and its end (toolhost
	// --version's too) need not make the folder only to remove it.
	asked atomic.Bool
	once  sync.Once
	// parent is the folder of this server's groups; "" when cgroups
	// cannot be used here (why says why).
	parent string
	why    error

	// mu guards the fields below, and the making and removal of folders.
	mu sync.Mutex
	// parentMade: the parent folder exists (it goes with the last group).
	parentMade bool
	// byScope holds every group not yet removed.
	byScope map[Scope]*cgroup
	closed  bool
	// watchers counts the goroutines watching finished commands' groups.
	watchers sync.WaitGroup
}

// cgroup is one command's group.
type cgroup struct {
	scope Scope
	dir   string
	// fd is the group's folder, open for CLONE_INTO_CGROUP; closed with
	// the group's removal.
	fd int
	// stop is closed when the group is killed: its watch ends.
	stop     chan struct{}
	stopOnce sync.Once
	// watched (guarded by cgroups.mu) is set once a goroutine watches the
	// group or removes it.
	watched bool
}

// cgroupParent returns the folder of this server's groups, made on first
// use, or "" when there is none.
func cgroupParent() string {
	cgroups.asked.Store(true)
	cgroups.once.Do(func() {
		cgroups.parent, cgroups.why = makeCgroupParent()
	})
	return cgroups.parent
}

// makeCgroupParent finds this process's cgroup v2 folder and makes the
// server's folder below it, when the kernel will let this process move
// new processes there and kill them by group.
func makeCgroupParent() (string, error) {
	if strings.EqualFold(os.Getenv(CgroupOffVar), "off") {
		return "", fmt.Errorf("turned off (%s=off)", CgroupOffVar)
	}
	own, err := ownCgroup()
	if err != nil {
		return "", err
	}
	// Moving a process between two groups needs write access to the
	// cgroup.procs of their common ancestor: the server's own group.
	if err := unix.Access(filepath.Join(own, "cgroup.procs"), unix.W_OK); err != nil {
		return "", fmt.Errorf("%s is not delegated to this user: %w", own, err)
	}
	parent := filepath.Join(own, "toolhost-"+server)
	if err := os.Mkdir(parent, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return "", err
	}
	defer os.Remove(parent)
	if _, err := os.Stat(filepath.Join(parent, "cgroup.kill")); err != nil {
		return "", fmt.Errorf("the kernel has no cgroup.kill (Linux 5.14 or later): %w", err)
	}
	return parent, nil
}

// ownCgroup is the folder of this process's cgroup v2 group.
func ownCgroup() (string, error) {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	var rel string
	found := false
	for line := range strings.SplitSeq(string(data), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			rel, found = p, true
		}
	}
	if !found {
		return "", errors.New("this process is in no cgroup v2 group")
	}
	mount, root, err := cgroup2Mount()
	if err != nil {
		return "", err
	}
	rel, ok := strings.CutPrefix(rel, root)
	if !ok && root != "/" {
		return "", fmt.Errorf("this process's group %s lies outside the mounted hierarchy %s", rel, root)
	}
	return filepath.Join(mount, rel), nil
}

// cgroup2Mount is where the cgroup v2 hierarchy is mounted, and the group
// the mount shows as its root.
func cgroup2Mount() (mount, root string, err error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint options... - fstype source superoptions
		fields := strings.Fields(sc.Text())
		for i, f := range fields {
			if f == "-" && i+1 < len(fields) && fields[i+1] == "cgroup2" && len(fields) > 4 {
				return unescapeMount(fields[4]), unescapeMount(fields[3]), nil
			}
		}
	}
	return "", "", errors.New("no cgroup v2 hierarchy is mounted")
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// newCgroup makes the group of scope s, or returns nil when there are no
// groups here.
func newCgroup(s Scope) *cgroup {
	parent := cgroupParent()
	if parent == "" {
		return nil
	}
	_, n, _ := strings.Cut(string(s), "/")
	dir := filepath.Join(parent, n)
	cgroups.mu.Lock()
	defer cgroups.mu.Unlock()
	if cgroups.closed {
		return nil
	}
	if !cgroups.parentMade {
		if err := os.Mkdir(parent, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return nil
		}
		cgroups.parentMade = true
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		_ = unix.Rmdir(dir)
		return nil
	}
	g := &cgroup{scope: s, dir: dir, fd: fd, stop: make(chan struct{})}
	if cgroups.byScope == nil {
		cgroups.byScope = map[Scope]*cgroup{}
	}
	cgroups.byScope[s] = g
	return g
}

// into makes cmd start inside the group.
func (g *cgroup) into(cmd *exec.Cmd) {
	cmd.SysProcAttr.UseCgroupFD = true
	cmd.SysProcAttr.CgroupFD = g.fd
}

// procs lists the processes in the group.
func (g *cgroup) procs() []int {
	data, err := os.ReadFile(filepath.Join(g.dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var out []int
	for f := range bytes.FieldsSeq(data) {
		if pid, err := strconv.Atoi(string(f)); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// kill kills every process of the group; its watch ends, and the group is
// removed once its processes have died.
func (g *cgroup) kill() {
	_ = os.WriteFile(filepath.Join(g.dir, "cgroup.kill"), []byte("1"), 0)
	g.stopOnce.Do(func() { close(g.stop) })
	g.startWatch(g.removeWhenEmpty)
}

// startWatch runs f in a goroutine the server waits for as it ends,
// unless the group already has one.
func (g *cgroup) startWatch(f func()) {
	cgroups.mu.Lock()
	defer cgroups.mu.Unlock()
	if cgroups.closed || g.watched {
		return
	}
	g.watched = true
	cgroups.watchers.Add(1)
	go func() {
		defer cgroups.watchers.Done()
		f()
	}()
}

// commandEnded starts the watch of the group of a command that ended (or
// was cancelled): what lost the command's label ends now, and what keeps
// it (a server the command left running, which the session ends) is
// watched until it is gone, so that one that clears its environment later
// (env -i, on its way to a setsid) ends the moment it is seen doing so.
// The group is removed once it is empty or killed.
func (g *cgroup) commandEnded() { g.startWatch(g.watch) }

func (g *cgroup) watch() {
	labels := [][]byte{[]byte(Var + "=" + string(g.scope) + "\x00")}
	judge := func(pid int) labelState { return labelOf(pid, labels, false) }
	pause := time.Millisecond
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-g.stop:
			g.removeWhenEmpty()
			return
		case <-timer.C:
		}
		killRounds(g.procs, judge, unlabelled, true)
		if len(g.procs()) == 0 && g.remove() {
			return
		}
		timer.Reset(pause)
		pause = min(2*pause, cgroupWatchEvery)
	}
}

// remove removes the group's folder (it must be empty), and the server's
// with the last group, and forgets the group; false when the folder is
// still in use.
func (g *cgroup) remove() bool {
	cgroups.mu.Lock()
	defer cgroups.mu.Unlock()
	if cgroups.byScope[g.scope] != g {
		return true // removed already
	}
	if err := unix.Rmdir(g.dir); err != nil && !errors.Is(err, unix.ENOENT) {
		return false
	}
	_ = unix.Close(g.fd)
	delete(cgroups.byScope, g.scope)
	if len(cgroups.byScope) == 0 && cgroups.parentMade && unix.Rmdir(cgroups.parent) == nil {
		cgroups.parentMade = false
	}
	return true
}

// removeWhenEmpty removes a killed group's folder once its processes have
// died.
func (g *cgroup) removeWhenEmpty() {
	waitUnpopulated(g.dir, cgroupRemoveWait)
	g.remove()
}

// waitUnpopulated waits, at most limit, until the group in dir holds no
// live process: its cgroup.events says "populated 0", and the kernel
// signals every change of that file through inotify.
func waitUnpopulated(dir string, limit time.Duration) bool {
	events := filepath.Join(dir, "cgroup.events")
	in, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return false
	}
	defer unix.Close(in)
	if _, err := unix.InotifyAddWatch(in, events, unix.IN_MODIFY); err != nil {
		return false
	}
	deadline := time.Now().Add(limit)
	buf := make([]byte, 4096)
	for {
		data, err := os.ReadFile(events)
		if err != nil || bytes.Contains(data, []byte("populated 0")) {
			return true
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		fds := []unix.PollFd{{Fd: int32(in), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, int(left/time.Millisecond)+1); err != nil && !errors.Is(err, unix.EINTR) {
			return false
		}
		// One read, and only of events poll saw: the wait stays bounded
		// by limit even if the descriptor lost O_NONBLOCK (it did when it
		// took the number of a closed stdin, see cmd/toolhost's
		// pollableStdin). An event left over wakes the next poll at once.
		if fds[0].Revents&unix.POLLIN != 0 {
			_, _ = unix.Read(in, buf)
		}
	}
}

// groupOf returns the group of scope s, or nil.
func groupOf(s Scope) *cgroup {
	if cgroupParent() == "" {
		return nil
	}
	cgroups.mu.Lock()
	defer cgroups.mu.Unlock()
	return cgroups.byScope[s]
}

// killGroups kills the groups of the scopes that have one, and returns
// how many processes they held.
func killGroups(scopes []Scope) int {
	n := 0
	for _, s := range scopes {
		if g := groupOf(s); g != nil {
			n += len(g.procs())
			g.kill()
		}
	}
	return n
}

// killAllGroups kills every group of this server, waits for their watches
// and removes their folders and the server's. No group is made after it.
func killAllGroups() {
	if !cgroups.asked.Load() {
		// Nothing had asked for a group: none exists, unless one was made
		// between that look and the lock. Close the door, as below, so
		// that none is made after.
		cgroups.mu.Lock()
		cgroups.closed = true
		made := len(cgroups.byScope) > 0
		cgroups.mu.Unlock()
		if !made {
			return
		}
	}
	if cgroupParent() == "" {
		return
	}
	cgroups.mu.Lock()
	cgroups.closed = true
	groups := make([]*cgroup, 0, len(cgroups.byScope))
	for _, g := range cgroups.byScope {
		groups = append(groups, g)
	}
	cgroups.mu.Unlock()
	// One write kills every group below the server's folder.
	_ = os.WriteFile(filepath.Join(cgroups.parent, "cgroup.kill"), []byte("1"), 0)
	for _, g := range groups {
		g.stopOnce.Do(func() { close(g.stop) })
	}
	cgroups.watchers.Wait()
	for _, g := range groups {
		g.removeWhenEmpty()
	}
	removeCgroupTree(cgroups.parent)
}

// removeCgroupTree kills and removes the cgroup folder dir and every group
// below it (the watchdog's work once the server is gone).
func removeCgroupTree(dir string) {
	_ = os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			removeCgroupTree(filepath.Join(dir, e.Name()))
		}
	}
	waitUnpopulated(dir, cgroupRemoveWait)
	_ = unix.Rmdir(dir)
}

// contain makes cmd (made by exec.CommandContext, not started) start in a
// group of its own for scope s, labelled with env; the end of ctx kills
// the group when the command still runs, and otherwise ends what it left
// that lost the label and watches the rest. It reports false, leaving cmd
// as it was, when there are no groups here.
func contain(ctx context.Context, cmd *exec.Cmd, env []string, s Scope) bool {
	if cmd.Err != nil {
		return false
	}
	g := newCgroup(s)
	if g == nil {
		return false
	}
	cmd.Env = s.Env(env)
	cmd.SysProcAttr = procAttr()
	g.into(cmd)
	cmd.Cancel = func() error {
		g.kill()
		err := KillGroup(cmd.Process.Pid)
		s.Kill()
		return err
	}
	context.AfterFunc(ctx, g.commandEnded)
	return true
}

// containLabelled puts a labelled command without a context (an MCP
// server) in a group of its own, ended by a kill of its scope.
func containLabelled(cmd *exec.Cmd, s Scope) {
	if g := newCgroup(s); g != nil {
		g.into(cmd)
	}
}

// CgroupStatus says why commands do not run in cgroups here; nil when
// they do.
func CgroupStatus() error {
	if cgroupParent() == "" {
		return cgroups.why
	}
	return nil
}
