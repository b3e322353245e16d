package shell

import (
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/toolhost/toolhost/internal/lifetime"
	"github.com/toolhost/toolhost/tools/tasks"
)

// Most of a short Bash call is the start of bash itself: the fork, the
// exec, the dynamic loader and bash's own start (about 6 ms of an 8 ms
// `echo hi` here). So a session keeps one bash started ahead, a spare: it
// is started exactly as a call's command is (tasks.Command: its own process
// group, scope and cgroup), in the folder and with the environment the next
// call is expected to have, and it waits reading its script from a pipe on
// descriptor 3. A call whose bash, folder and environment are the spare's
// writes its script there and closes the pipe; the spare reads it whole,
// closes the descriptor, and evaluates it in the same process, where
// `bash -c` would have. The next spare is started in the background once
// the call is over. A spare started with another folder or environment
// (a cd, a change of settings) is thrown away: its pipe is closed unwritten,
// so it evaluates nothing and exits.
//
// Spares are used only where commands run in cgroups (internal/lifetime):
// a spare then carries every guarantee a command started at its call has,
// and no process stands between the server and it. Elsewhere, under the
// reaper, a call starts its command as before.

// sparePrelude is the spare's `bash -c` text. $(<file) reads the whole
// script in one go (the read builtin takes a pipe a byte at a time), and the
// variable is gone before the script runs, as the descriptor is.
const sparePrelude = `__toolhost_script=$(</dev/fd/3); exec 3<&-; eval "unset -v __toolhost_script; $__toolhost_script"`

// spares keeps a Bash tool's spare: at most one, ready or being started.
type spares struct {
	mu sync.Mutex
	// ready is the spare waiting for a call; nil when there is none.
	ready *spare
	// starting is closed when the spare a goroutine is starting is
	// ready (or failed); nil when no start is under way. startingKey is
	// that spare's key.
	starting    chan struct{}
	startingKey string
	// closed: the session ended, and no spare starts any more.
	closed bool
	// starts counts the goroutines starting spares; close waits for them.
	starts sync.WaitGroup
}

// spare is one bash started ahead, blocked reading its script.
type spare struct {
	// key is what it was started with (spareKey).
	key  string
	cmd  *exec.Cmd
	kill context.CancelFunc
	// script is the write end of the pipe the spare reads its script from.
	script *os.File
	out    *lateWriter
}

// spareKey is what a spare must have been started with to run a call:
// the bash, the folder and the environment.
func spareKey(bash, dir string, env []string) string {
	return bash + "\x00" + dir + "\x00" + strings.Join(env, "\x00")
}

// sparesUsable reports whether commands run in cgroups here, the only
// place spares are used.
func sparesUsable() bool { return lifetime.CgroupStatus() == nil }

// take returns the ready spare when it was started with key, and nil
// otherwise; a spare started with another key is thrown away. A spare
// for key still being started is waited for (or ctx's end): it is ready
// sooner than a process started now, and calls in a row then pay one
// start each, not two.
func (p *spares) take(ctx context.Context, key string) *spare {
	p.mu.Lock()
	if started := p.starting; started != nil && p.startingKey == key {
		p.mu.Unlock()
		select {
		case <-started:
		case <-ctx.Done():
			return nil
		}
		p.mu.Lock()
	}
	sp := p.ready
	p.ready = nil
	p.mu.Unlock()
	if sp != nil && sp.key != key {
		sp.discard()
		return nil
	}
	return sp
}

// refill starts a spare for key in the background, unless one is ready
// for it or being started.
func (p *spares) refill(key, bash, dir string, env []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.starting != nil || p.ready != nil && p.ready.key == key {
		return
	}
	started := make(chan struct{})
	p.starting, p.startingKey = started, key
	p.starts.Go(func() {
		sp := startSpare(key, bash, dir, env)
		p.mu.Lock()
		p.starting = nil
		old := p.ready
		if p.closed {
			old = sp
		} else if sp != nil {
			p.ready = sp
		} else {
			old = nil
		}
		p.mu.Unlock()
		close(started)
		if old != nil {
			old.discard()
		}
	})
}

// close throws the ready spare away and waits for a start under way,
// which throws its spare away too; no spare is started afterwards.
func (p *spares) close() {
	p.mu.Lock()
	p.closed = true
	sp := p.ready
	p.ready = nil
	p.mu.Unlock()
	p.starts.Wait()
	if sp != nil {
		sp.discard()
	}
}

// startSpare starts a spare, or returns nil when it cannot.
func startSpare(key, bash, dir string, env []string) *spare {
	r, w, err := os.Pipe()
	if err != nil {
		return nil
	}
	defer r.Close()
	ctx, kill := context.WithCancel(context.Background())
	cmd := tasks.Command(ctx, env, bash, "-c", sparePrelude)
	cmd.Dir = dir
	if len(cmd.ExtraFiles) != 0 {
		// Descriptor 3 is taken (a reaper's pipe): no spare here.
		kill()
		w.Close()
		return nil
	}
	cmd.ExtraFiles = []*os.File{r}
	out := newLateWriter()
	cmd.Stdout, cmd.Stderr = out, out
	if err := lifetime.Start(cmd); err != nil {
		kill()
		w.Close()
		return nil
	}
	return &spare{key: key, cmd: cmd, kill: kill, script: w, out: out}
}

// run hands the spare its script and its output's writer. On an error (the
// spare died waiting, or ctx ended during the write) the spare is killed
// and waited for, and the caller starts the command afresh or gives up.
func (sp *spare) run(ctx context.Context, w io.Writer, script string) error {
	// A script longer than the pipe holds is written as the spare reads
	// it; the end of ctx ends the write.
	stop := context.AfterFunc(ctx, func() { _ = sp.script.SetWriteDeadline(time.Unix(1, 0)) })
	_, err := io.WriteString(sp.script, script)
	stop()
	if cerr := sp.script.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		sp.out.set(io.Discard)
		sp.kill()
		_ = sp.cmd.Wait()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	sp.out.set(w)
	return nil
}

// discard ends an unused spare: its pipe closes unwritten, so it evaluates
// nothing and exits, and is waited for.
func (sp *spare) discard() {
	_ = sp.script.Close()
	sp.out.set(io.Discard)
	_ = sp.cmd.Wait()
	sp.kill()
}

// lateWriter is a spare's output: its writes wait until the call that
// takes the spare gives the writer they go to (or the spare is thrown
// away), so that nothing is lost and nothing piles up meanwhile.
type lateWriter struct {
	once  sync.Once
	ready chan struct{}
	w     io.Writer // set once, before ready closes
}

func newLateWriter() *lateWriter { return &lateWriter{ready: make(chan struct{})} }

// set gives the writer; the first call counts.
func (l *lateWriter) set(w io.Writer) {
	l.once.Do(func() {
		l.w = w
		close(l.ready)
	})
}

func (l *lateWriter) Write(p []byte) (int, error) {
	<-l.ready
	return l.w.Write(p)
}
