package tasks

import (
	"context"
	"errors"
	"os/exec"
	"time"

	"github.com/toolhost/toolhost/internal/lifetime"
)

// PipeGrace is how long a finished command's output pipe is still read
// when processes it left behind (`server &`) keep it open.
const PipeGrace = 250 * time.Millisecond

// Command returns a command with env as its environment (os.Environ()
// when nil) that runs in its own process group and process scope
// (internal/lifetime), both killed when ctx ends: a timeout or a cancel
// also ends the grandchildren a shell started, those that left the group
// (setsid, daemons) included, and those that cleared their environment
// (env -i) through the command's reaper. After the command itself exits, its output is
// read for at most PipeGrace more: background children holding the pipe
// open cannot hang the caller.
func Command(ctx context.Context, env []string, name string, args ...string) *exec.Cmd {
	cmd := lifetime.Reaped(ctx, env, name, args...)
	cmd.WaitDelay = PipeGrace
	return cmd
}

// KillGroup kills every process of the process group pgid.
func KillGroup(pgid int) error { return lifetime.KillGroup(pgid) }

// GroupAlive reports whether any process of the group pgid is still there.
func GroupAlive(pgid int) bool {
	return lifetime.GroupAlive(pgid)
}

// ExitCode interprets the error of cmd.Wait: the exit code (-1 when the
// process was killed by a signal) and whether the command ran at all. A
// wait that ended because the output pipe outlived the process
// (exec.ErrWaitDelay) counts as the process's own exit.
func ExitCode(cmd *exec.Cmd, waitErr error) (code int, ran bool) {
	var exit *exec.ExitError
	switch {
	case waitErr == nil, errors.Is(waitErr, exec.ErrWaitDelay):
		if cmd.ProcessState != nil {
			return cmd.ProcessState.ExitCode(), true
		}
		return 0, true
	case errors.As(waitErr, &exit):
		return exit.ExitCode(), true
	}
	return -1, cmd.ProcessState != nil
}
