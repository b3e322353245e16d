package lifetime

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/toolhost/toolhost/internal/pathutil"
)

// ReapCommand is the hidden subcommand of the toolhost binary that runs a
// command below a reaper (see reaperMain):
//
//	toolhost __reap SCOPE PATH ARGV0 ARGS...
//
// It runs PATH with argv ARGV0 ARGS... and the environment it was given
// plus SCOPE as the label, and expects the read end of its stop pipe as
// descriptor 3.
const ReapCommand = "__reap"

// reaperServed is set when this program serves reapers (it called
// MainIfAsked).
var reaperServed atomic.Bool

// MainIfAsked is the first thing main (or a test binary's TestMain) does:
// started as a reaper (its first argument is ReapCommand), the program runs
// the reaper and never returns; otherwise it records that this executable
// serves reapers, for Command.
func MainIfAsked() {
	if len(os.Args) >= 2 && os.Args[1] == ReapCommand {
		os.Exit(reaperMain(os.Args[2:]))
	}
	if reaperSupported {
		reaperServed.Store(true)
	}
}

// reaperArgv is the argv prefix that starts a reaper; nil when this
// program cannot serve one. The executable is found when a command first
// needs it (pathutil.SelfExe), not as the program starts.
func reaperArgv() []string {
	if !reaperServed.Load() {
		return nil
	}
	exe := pathutil.SelfExe()
	if exe == "" {
		return nil
	}
	return []string{exe, ReapCommand}
}

// reap makes cmd (made by exec.CommandContext, not started, its name
// resolved) run below a reaper of scope s. The reaper stays out of the
// scope (its environment has no label), so that neither a kill of the scope
// nor the watchdog ends it before it has ended what only it can see; it
// shares the command's process group. Its stop pipe closes when ctx ends,
// when cmd is cancelled, and when this process ends however it ends.
// It reports false, leaving cmd as it was, when there is no reaper to run.
func reap(ctx context.Context, cmd *exec.Cmd, env []string, s Scope) bool {
	h := reaperArgv()
	if h == nil || cmd.Err != nil {
		return false
	}
	r, w, err := os.Pipe()
	if err != nil {
		return false
	}
	argv := append([]string{h[0], h[1], string(s), cmd.Path}, cmd.Args...)
	cmd.Path, cmd.Args = h[0], argv
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = withoutLabel(env)
	// The reaper's descriptor 3; the caller is told not to use ExtraFiles.
	cmd.ExtraFiles = []*os.File{r}
	// Its own group, which the command shares: a kill of the group (what
	// a finished command left) ends both, as without a reaper. No
	// parent-death signal: the stop pipe tells it, and a signal of the
	// kernel's would come when the thread that started it ends, not the
	// server.
	cmd.SysProcAttr = groupAttr()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			_ = w.Close()
			_ = r.Close()
		})
	}
	// Both ends close when the command's context ends (at the latest):
	// the reaper holds its own copy of the read end.
	context.AfterFunc(ctx, stop)
	cmd.Cancel = func() error {
		stop()
		// What the reaper cannot see: nothing, unless it was killed.
		s.Kill()
		return nil
	}
	return true
}

// withoutLabel is env without a scope.
func withoutLabel(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, Var+"=") {
			out = append(out, kv)
		}
	}
	return out
}
