// Package shell holds the tools that run commands: Bash (bash -c in the
// workspace root, in the foreground or as a background task) and SSHBash (a
// command on a host named in settings, through the system ssh). Commands run
// in their own process group, so a timeout or a cancel ends everything they
// started; their stdout and stderr are combined in the order written.
package shell

import (
	"context"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/toolhost/toolhost/internal/lifetime"
	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/tasks"
)

// progressEvery is how often a running command's latest output is reported.
const progressEvery = 200 * time.Millisecond

// progressTailBytes is how much of the latest output a report carries.
const progressTailBytes = 400

// limits returns a foreground command's timeout (the requested one in
// milliseconds, else bash.defaultTimeoutMs, never over bash.maxTimeoutMs)
// and its output cap (bash.maxOutputChars); unset settings take the
// built-in defaults.
func limits(s *settings.Settings, requestedMs *float64) (timeout, maxTimeout time.Duration, maxOutput int) {
	d := settings.Defaults().Bash
	ms := func(v, def int) time.Duration {
		if v <= 0 {
			v = def
		}
		return time.Duration(v) * time.Millisecond
	}
	timeout = ms(s.Bash.DefaultTimeoutMs, d.DefaultTimeoutMs)
	maxTimeout = ms(s.Bash.MaxTimeoutMs, d.MaxTimeoutMs)
	if requestedMs != nil && *requestedMs > 0 {
		timeout = time.Duration(*requestedMs * float64(time.Millisecond))
	}
	maxOutput = s.Bash.MaxOutputChars
	if maxOutput <= 0 {
		maxOutput = d.MaxOutputChars
	}
	return min(timeout, maxTimeout), maxTimeout, maxOutput
}

// runSpec is one foreground command.
type runSpec struct {
	name      string
	args      []string
	dir       string
	env       []string
	timeout   time.Duration
	maxOutput int
	progress  tools.Progress
	// adopt receives the finished command, whose processes left running
	// (`server &`, a daemon) the session ends at its close.
	adopt func(cmd *exec.Cmd)
	// background, when set, is offered a command still running at its
	// timeout; it returns the id of the task that took the command over, or
	// "" when the command is to be killed.
	background func(cmd *exec.Cmd, out *tasks.Output, waitErr <-chan error, kill func()) string
	// spill, when set, receives the whole output as it comes (spill.go).
	spill *spill
	// spare, when set, is a bash started ahead with spec's folder and
	// environment (spare.go): it runs the script, args' last, instead of
	// a new process, unless it died waiting.
	spare *spare
}

// runResult is how a foreground command ended.
type runResult struct {
	output   string // combined output, shortened to maxOutput with a note
	exitCode int    // -1 when killed by a signal
	signal   string // the signal that killed it, e.g. SIGSEGV
	timedOut bool
	// backgroundTask is the id of the task the command became at its
	// timeout; the other fields are then unset except output (so far).
	backgroundTask string
}

// runForeground runs a command to its end, its timeout, or ctx's end
// (returning ctx's error then). The whole process group is killed on
// cancel, and on timeout unless spec.background takes the command over.
func runForeground(ctx context.Context, spec runSpec) (runResult, error) {
	out := tasks.NewOutput(max(spec.maxOutput, tasks.DefaultMaxOutputBytes))
	// One writer for both streams: exec then gives the child a single pipe,
	// so stdout and stderr stay in the order they were written.
	var w io.Writer = out
	if spec.spill != nil {
		w = io.MultiWriter(out, spec.spill)
	}
	cmd, kill, err := start(ctx, spec, w)
	if err != nil {
		return runResult{}, err
	}
	stopProgress := reportProgress(out, spec.progress)
	waitErr := make(chan error, 1)
	go func() { waitErr <- cmd.Wait() }()
	timer := time.NewTimer(spec.timeout)
	defer timer.Stop()
	timedOut := false
	select {
	case err = <-waitErr:
	case <-ctx.Done():
		kill()
		<-waitErr
		stopProgress()
		return runResult{}, ctx.Err()
	case <-timer.C:
		if spec.background != nil {
			if id := spec.background(cmd, out, waitErr, kill); id != "" {
				stopProgress()
				return runResult{output: out.Render(spec.maxOutput), backgroundTask: id}, nil
			}
		}
		kill()
		err = <-waitErr
		timedOut = true
	}
	kill()
	stopProgress()
	res := runResult{output: out.Render(spec.maxOutput), timedOut: timedOut}
	code, ran := tasks.ExitCode(cmd, err)
	if !ran {
		return runResult{}, err
	}
	res.exitCode = code
	res.signal = signalName(cmd.ProcessState)
	if spec.adopt != nil && cmd.Process != nil {
		spec.adopt(cmd)
	}
	return res, nil
}

// start starts spec's command with w as its output: in spec.spare when
// it has one that takes the script, else as a new process. kill ends the
// command's own context: cancelled by the caller, never by ctx directly,
// so that a command handed to the background outlives its call.
func start(ctx context.Context, spec runSpec, w io.Writer) (cmd *exec.Cmd, kill context.CancelFunc, err error) {
	if sp := spec.spare; sp != nil {
		err := sp.run(ctx, w, spec.args[len(spec.args)-1])
		if err == nil {
			return sp.cmd, sp.kill, nil
		}
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
	}
	cmdCtx, kill := context.WithCancel(context.WithoutCancel(ctx))
	cmd = tasks.Command(cmdCtx, spec.env, spec.name, spec.args...)
	cmd.Dir = spec.dir
	cmd.Stdout, cmd.Stderr = w, w
	if err := lifetime.Start(cmd); err != nil {
		kill()
		return nil, nil, err
	}
	return cmd, kill, nil
}

// reportProgress sends the tail of out to p whenever it changed, at most
// every progressEvery, until the returned function is called.
func reportProgress(out *tasks.Output, p tools.Progress) (stop func()) {
	if p == nil {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		ticker := time.NewTicker(progressEvery)
		defer ticker.Stop()
		var seen int64
		for {
			select {
			case <-done:
				return
			case <-ticker.C:
				if n := out.Total(); n != seen {
					seen = n
					p.Report(lastLines(out.Tail(progressTailBytes), 5))
				}
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// lastLines returns the last n non-empty lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
