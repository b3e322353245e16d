package tasks

import (
	"os/exec"
)

// TakeOver makes a command that is already running in the foreground a
// background task, as Claude Code does with a Bash command that outlives its
// timeout: the command keeps running and writing to out, and the task ends
// when waitErr delivers cmd.Wait's result. kill ends the command's whole
// process group; it is called when the task is stopped, when spec.Timeout
// passes, and at Close. Of spec, Kind, Command, Timeout and Notify are used.
//
// The caller must not wait for the command itself once TakeOver succeeded. On
// an error (the session is closing) nothing was adopted and the caller still
// owns the command.
func (m *Manager) TakeOver(spec Spec, cmd *exec.Cmd, out *Output, waitErr <-chan error, kill func()) (*Task, error) {
	id, kind, err := m.nextID(spec.Kind)
	if err != nil {
		return nil, err
	}
	ctx, cancel := taskContext(spec.Timeout)
	t := newTask(id, kind, spec, m.maxOutput, cancel)
	t.cmd, t.out = cmd, out
	if !m.add(t) {
		cancel()
		return nil, ErrClosed
	}
	m.send(t, TaskChanged{TaskID: id, Status: Running, Command: spec.Command})
	// The task's context ends on stop, timeout and Close: then the command
	// is killed. The watcher ends with the task.
	go func() {
		select {
		case <-ctx.Done():
			kill()
		case <-t.done:
		}
	}()
	go m.waitWith(ctx, t, func() error { return <-waitErr })
	return t, nil
}
