package hooks

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"sort"
	"time"

	"github.com/toolhost/toolhost/internal/lifetime"
	"github.com/toolhost/toolhost/settings"
)

// maxOutput caps what is kept of a hook's stdout and stderr; a chatty hook
// must not fill the server's memory.
const maxOutput = 1 << 20

// waitDelay bounds how long Wait waits for the output pipes after the hook
// exited or its process group was killed (a child left running, or a
// grandchild that left the group, may hold them). A variable for tests.
var waitDelay = 2 * time.Second

// reply is how one hook process ended.
type reply struct {
	stdout, stderr string
	exitCode       int
	startErr       error
	timedOut       bool
	timeout        time.Duration
	// interrupted: the caller's context ended; the reply is to be ignored.
	interrupted bool
}

// run runs one hook command with stdin, in procDir, with env added to the
// server's environment and dir as CLAUDE_PROJECT_DIR, and waits for it
// within its timeout.
func run(ctx context.Context, h settings.HookCommand, stdin []byte, dir, procDir string, env map[string]string) reply {
	timeout := DefaultTimeout
	if h.Timeout > 0 {
		timeout = time.Duration(h.Timeout * float64(time.Second))
	}
	hctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	cmd := command(hctx, environ(env, dir), shell(), "-c", h.Command)
	cmd.Dir = procDir
	cmd.Stdin = bytes.NewReader(stdin)
	stdout := &cappedBuffer{max: maxOutput}
	stderr := &cappedBuffer{max: maxOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = waitDelay

	err := lifetime.Start(cmd)
	if err == nil {
		err = cmd.Wait()
	}
	if errors.Is(err, exec.ErrWaitDelay) {
		// The hook exited 0, but a child it left (a notifier started with
		// &) held its output open past waitDelay: its answer is what it
		// wrote until then. Wait reports a non-zero exit before this.
		err = nil
	}
	rep := reply{stdout: stdout.String(), stderr: stderr.String(), timeout: timeout}
	switch {
	case ctx.Err() != nil:
		rep.interrupted = true
	case errors.Is(hctx.Err(), context.DeadlineExceeded):
		rep.timedOut = true
	case err == nil:
	default:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			rep.exitCode = exit.ExitCode()
			if rep.exitCode < 0 {
				// Killed by a signal from elsewhere: a failure, not a block.
				rep.exitCode = 128
			}
		} else {
			rep.startErr = err
		}
	}
	return rep
}

// shell is the interpreter of hook commands: bash, as Claude Code uses,
// or sh where bash is missing.
func shell() string {
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "/bin/sh"
}

// environ is the server's environment plus the settings' env and
// CLAUDE_PROJECT_DIR, which hooks written for Claude Code use to find their
// scripts. Later entries win, so env overrides the server's variables.
func environ(env map[string]string, dir string) []string {
	out := os.Environ()
	if dir != "" {
		out = append(out, "CLAUDE_PROJECT_DIR="+dir)
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+env[k])
	}
	return out
}

// cappedBuffer keeps the first max bytes written and drops the rest while
// still reporting success, so the hook is never blocked on a full pipe.
type cappedBuffer struct {
	buf bytes.Buffer
	max int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); room > 0 {
		if len(p) > room {
			b.buf.Write(p[:room])
		} else {
			b.buf.Write(p)
		}
	}
	return len(p), nil
}

func (b *cappedBuffer) String() string { return b.buf.String() }
