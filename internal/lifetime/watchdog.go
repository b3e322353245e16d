package lifetime

import (
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/internal/pathutil"
)

// WatchdogVar passes the server's token to its watchdog, and
// watchdogCgroupVar the folder of its cgroups, if any.
const (
	WatchdogVar       = "TOOLHOST_WATCHDOG"
	watchdogCgroupVar = "TOOLHOST_WATCHDOG_CGROUP"
)

// watchdog is the configured watchdog command and, once started, the write
// end of its pipe: held, never written, so the kernel closes it only when
// the server ends.
var watchdog struct {
	mu sync.Mutex
	// args are the arguments that make this executable run Watch; nil
	// until Init.
	args    []string
	started bool
	pipe    *os.File
}

// Init makes this process a server whose processes the package tracks:
// its own environment gets a scope of the server, so anything started
// without Label (a library's child) is still ended with it, and args are
// the arguments that make this executable run the watchdog (its watchdog
// command), started with the first labelled process; none, no watchdog.
func Init(args ...string) {
	_ = os.Setenv(Var, server+"/0")
	if joinServerJob() {
		// The system ends the server's processes with it: no watchdog.
		return
	}
	watchdog.mu.Lock()
	watchdog.args = args
	watchdog.mu.Unlock()
}

// ensureWatchdog starts the watchdog once, if Init configured one. A
// watchdog that cannot start leaves the other rules in force (the server
// still ends its processes as it ends); the failure is not fatal.
func ensureWatchdog() {
	// Every command starts here: none starts before a signal would end it
	// with the server.
	awaitSignals()
	watchdog.mu.Lock()
	defer watchdog.mu.Unlock()
	if watchdog.started || len(watchdog.args) == 0 {
		return
	}
	watchdog.started = true
	exe := pathutil.SelfExe()
	if exe == "" {
		return
	}
	r, w, err := os.Pipe()
	if err != nil {
		return
	}
	defer r.Close()
	cmd := exec.Command(exe, watchdog.args...)
	cmd.Stdin = r
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, Var+"=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, WatchdogVar+"="+server)
	if dir := cgroupParent(); dir != "" {
		cmd.Env = append(cmd.Env, watchdogCgroupVar+"="+dir)
	}
	// A group of its own: a terminal's Ctrl-C or hang-up reaches the
	// server, which ends its processes itself, and not the watchdog.
	cmd.SysProcAttr = groupAttr()
	if err := cmd.Start(); err != nil {
		w.Close()
		return
	}
	// The watchdog outlives this process by design; the kernel reaps it
	// after the server ends (it is reparented), so it is not waited for.
	_ = cmd.Process.Release()
	watchdog.pipe = w
}

// Watch is the watchdog: it waits until stdin ends — the server is gone,
// however it ended — and kills every process of the server's cgroups and
// scopes, and removes the cgroups.
func Watch(stdin io.Reader) {
	_, _ = io.Copy(io.Discard, stdin)
	if dir := os.Getenv(watchdogCgroupVar); dir != "" && strings.Contains(dir, "toolhost-") {
		removeCgroupTree(dir)
	}
	KillServer(os.Getenv(WatchdogVar))
}
