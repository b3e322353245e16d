package tasks

import (
	"context"
	"errors"
	"os/exec"
	"syscall"
	"time"
)

// PipeGrace is how long a finished command's output pipe is still read
// when processes it left behind (`server &`) keep it open.
const PipeGrace = 250 * time.Millisecond

// Command returns a command that runs in its own process group and whose
// whole group is killed when ctx ends, so a timeout or a cancel also ends
// the grandchildren a shell started. After the command itself exits, its
// output is read for at most PipeGrace more: background children holding
// the pipe open cannot hang the caller.
func Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return KillGroup(cmd.Process.Pid) }
	cmd.WaitDelay = PipeGrace
	return cmd
}

// KillGroup kills every process of the process group pgid.
func KillGroup(pgid int) error {
	if pgid <= 0 {
		return nil
	}
	err := syscall.Kill(-pgid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// GroupAlive reports whether any process of the group pgid is still there.
func GroupAlive(pgid int) bool {
	return pgid > 0 && syscall.Kill(-pgid, 0) == nil
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
