// Package tasks runs work in the background for the tools that start it
// (Bash and Agent with run_in_background): commands in their own process
// group, or functions of this process (StartFunc). It keeps their output
// within a cap, tells
// the client when they start and end (toolhost/taskChanged), and stops them:
// on request (TaskStop), on their timeout, and all at once when the session
// closes. It also holds the TaskOutput and TaskStop tools and the process
// group helpers that foreground commands share.
package tasks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolhost/toolhost/internal/lifetime"
)

// Status is the state of a task.
type Status string

// A task is Running until it ends as Completed (exit code 0), Failed (any
// other exit, a timeout, or a failure to start) or Stopped (TaskStop or the
// session's end).
const (
	Running   Status = "running"
	Completed Status = "completed"
	Failed    Status = "failed"
	Stopped   Status = "stopped"
)

// MethodTaskChanged is the notification sent when a task starts or ends.
const MethodTaskChanged = "toolhost/taskChanged"

// TaskChanged is the params of toolhost/taskChanged.
type TaskChanged struct {
	TaskID   string `json:"taskId"`
	Status   Status `json:"status"`
	Command  string `json:"command,omitempty"`
	ExitCode *int   `json:"exitCode,omitempty"`
}

// Notifier sends a notification to the client; tools.Host's Notify has
// this shape, so a session passes its host's method.
type Notifier func(ctx context.Context, method string, params any) error

// DefaultMaxOutputBytes is how much output a task keeps (head and tail).
const DefaultMaxOutputBytes = 1 << 20

// notifyTimeout bounds one notification, so a stuck client cannot hold a
// task's goroutine.
const notifyTimeout = 5 * time.Second

// Options configure a Manager.
type Options struct {
	// Notify is the session-wide notifier; it may also be set later with
	// SetNotifier. Without one, a task notifies through its Spec.Notify.
	Notify Notifier
	// MaxOutputBytes caps the output kept per task (default 1 MiB).
	MaxOutputBytes int
	// Log receives failures to notify; nil discards them.
	Log *slog.Logger
	// SpillDir is where an ended task's output moves out of memory (the
	// workspace's state folder, workspace.StateDir); "" means the system's
	// temporary folder. Close removes the files.
	SpillDir string
}

// Manager owns a session's background tasks. Create one per session with
// NewManager and Close it when the session ends. Safe for concurrent use.
type Manager struct {
	maxOutput int
	log       *slog.Logger
	spillDir  string

	mu sync.Mutex
	// notify is the session-wide notifier (may be nil).
	notify Notifier
	// tasks by id, and ids in start order.
	tasks map[string]*Task
	order []string
	// seq numbers task ids.
	seq int
	// groups are process groups of foreground commands that left processes
	// behind; Close kills them too.
	groups []int
	// scopes are the process scopes of foreground commands; Close ends
	// what is left of them, wherever it went.
	scopes []lifetime.Scope
	// onClose are what else the session's processes hang on (a shell
	// started ahead): Close runs them first.
	onClose []func()
	closed  bool
}

// NewManager returns an empty manager.
func NewManager(opts Options) *Manager {
	if opts.MaxOutputBytes <= 0 {
		opts.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.SpillDir == "" {
		opts.SpillDir = os.TempDir()
	}
	return &Manager{maxOutput: opts.MaxOutputBytes, log: opts.Log, spillDir: opts.SpillDir, notify: opts.Notify, tasks: map[string]*Task{}}
}

// SetNotifier sets the session-wide notifier (e.g. the editor's Notify once
// the connection is up).
func (m *Manager) SetNotifier(n Notifier) {
	m.mu.Lock()
	m.notify = n
	m.mu.Unlock()
}

// Spec describes a command to run as a task.
type Spec struct {
	// Kind prefixes the task id ("bash" gives bash-1, bash-2, ...).
	Kind string
	// Command is what the task runs, as shown to the user and the model.
	Command string
	// Name and Args are the program and its arguments (e.g. bash -c ...).
	Name string
	Args []string
	// Dir is the working folder; Env the full environment (nil: inherit).
	Dir string
	Env []string
	// Timeout stops the task when it runs longer; 0 means no limit.
	Timeout time.Duration
	// Notify reaches the client that started the task; used when the
	// manager has no session-wide notifier.
	Notify Notifier
	// Stdin, when not empty, is fed to the command's standard input, which
	// is then closed (a command's stdin is empty otherwise).
	Stdin string
}

// Task is one background command or function.
type Task struct {
	id      string
	kind    string
	command string
	started time.Time
	out     *Output
	// cmd is nil for a function's task (StartFunc).
	cmd    *exec.Cmd
	cancel context.CancelFunc
	notify Notifier
	// done is closed once the task has ended and its state is final.
	done chan struct{}

	mu sync.Mutex
	// status, exitCode, ended and failure describe how the task ended.
	status   Status
	exitCode *int
	ended    time.Time
	failure  string
	// stopRequested makes the end count as Stopped.
	stopRequested bool
}

// Snapshot is a task's state at one moment.
type Snapshot struct {
	ID        string    `json:"taskId"`
	Kind      string    `json:"kind"`
	Command   string    `json:"command"`
	Status    Status    `json:"status"`
	ExitCode  *int      `json:"exitCode,omitempty"`
	StartedAt time.Time `json:"startedAt"`
	EndedAt   time.Time `json:"endedAt,omitzero"`
	// Failure says why a task failed without an exit code (timeout, start).
	Failure string `json:"failure,omitempty"`
	// OutputBytes is how much output the task wrote in all.
	OutputBytes int64 `json:"outputBytes"`
}

// ErrClosed is returned by Start after Close.
var ErrClosed = errors.New("the session is closing; no new background tasks start")

// Start runs spec in the background and returns its task at once.
func (m *Manager) Start(spec Spec) (*Task, error) {
	id, kind, err := m.nextID(spec.Kind)
	if err != nil {
		return nil, err
	}
	ctx, cancel := taskContext(spec.Timeout)
	cmd := Command(ctx, spec.Env, spec.Name, spec.Args...)
	cmd.Dir = spec.Dir
	if spec.Stdin != "" {
		cmd.Stdin = strings.NewReader(spec.Stdin)
	}
	t := newTask(id, kind, spec, m.maxOutput, cancel)
	t.cmd = cmd
	cmd.Stdout, cmd.Stderr = t.out, t.out
	if err := lifetime.Start(cmd); err != nil {
		cancel()
		return nil, fmt.Errorf("starting %s: %w", spec.Name, err)
	}
	if !m.add(t) {
		cancel()
		_ = cmd.Wait()
		return nil, ErrClosed
	}
	m.send(t, TaskChanged{TaskID: id, Status: Running, Command: spec.Command})
	go m.wait(ctx, t)
	return t, nil
}

// Func is the work of a task that runs in this process rather than as a
// command (an Agent's sub-agent). It writes what it has to show to out and
// returns when done: nil completes the task, an error fails it with the
// error as the reason. It must return promptly once ctx is done (TaskStop,
// the timeout, the session's end).
type Func func(ctx context.Context, out io.Writer) error

// StartFunc runs f in the background as a task and returns the task at once.
// Of spec only Kind, Command, Timeout and Notify are used.
func (m *Manager) StartFunc(spec Spec, f Func) (*Task, error) {
	id, kind, err := m.nextID(spec.Kind)
	if err != nil {
		return nil, err
	}
	ctx, cancel := taskContext(spec.Timeout)
	t := newTask(id, kind, spec, m.maxOutput, cancel)
	if !m.add(t) {
		cancel()
		return nil, ErrClosed
	}
	m.send(t, TaskChanged{TaskID: id, Status: Running, Command: spec.Command})
	go func() {
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("the task crashed: %v", r)
				}
			}()
			err = f(ctx, t.out)
		}()
		t.mu.Lock()
		t.endLocked(ctx, err == nil)
		if t.status == Failed && t.failure == "" {
			t.failure = err.Error()
		}
		t.mu.Unlock()
		m.finish(t)
	}()
	return t, nil
}

// nextID numbers a new task of kind, unless the manager is closed.
func (m *Manager) nextID(kind string) (id, k string, err error) {
	if kind == "" {
		kind = "task"
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return "", "", ErrClosed
	}
	m.seq++
	return kind + "-" + strconv.Itoa(m.seq), kind, nil
}

// taskContext is the context a task runs under: its own, ended by stop and
// by the timeout when there is one.
func taskContext(timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout > 0 {
		return context.WithTimeout(context.Background(), timeout)
	}
	return context.WithCancel(context.Background())
}

func newTask(id, kind string, spec Spec, maxOutput int, cancel context.CancelFunc) *Task {
	return &Task{
		id: id, kind: kind, command: spec.Command, started: time.Now(),
		out: NewOutput(maxOutput), cancel: cancel, notify: spec.Notify,
		done: make(chan struct{}), status: Running,
	}
}

// add records a started task; false when the manager closed meanwhile.
func (m *Manager) add(t *Task) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return false
	}
	m.tasks[t.id] = t
	m.order = append(m.order, t.id)
	return true
}

// wait records how the task ended and tells the client.
func (m *Manager) wait(ctx context.Context, t *Task) { m.waitWith(ctx, t, t.cmd.Wait) }

// waitWith is wait with the command's Wait given (an adopted command is
// waited for by the code that started it).
func (m *Manager) waitWith(ctx context.Context, t *Task, wait func() error) {
	err := wait()
	code, ran := ExitCode(t.cmd, err)
	t.mu.Lock()
	t.endLocked(ctx, ran && code == 0)
	if ran && code >= 0 {
		t.exitCode = &code
	}
	if !ran && err != nil {
		t.failure = err.Error()
	}
	t.mu.Unlock()
	m.finish(t)
}

// endLocked records when and how the task ended: stopped on request,
// failed on its timeout, else completed when the work succeeded. t.mu is
// held.
func (t *Task) endLocked(ctx context.Context, succeeded bool) {
	t.ended = time.Now()
	switch {
	case t.stopRequested:
		t.status = Stopped
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		t.status, t.failure = Failed, "timed out"
	case succeeded:
		t.status = Completed
	default:
		t.status = Failed
	}
}

// finish makes a task's end final and tells the client.
func (m *Manager) finish(t *Task) {
	t.mu.Lock()
	changed := TaskChanged{TaskID: t.id, Status: t.status, Command: t.command, ExitCode: t.exitCode}
	t.mu.Unlock()
	t.cancel()
	// Its output is final: on disk it bounds the memory of a long session.
	if err := t.out.Spill(m.spillDir); err != nil {
		m.log.Warn("a finished task's output stays in memory", "task", t.id, "err", err)
	}
	close(t.done)
	m.send(t, changed)
}

// send notifies the client about a task, through the session-wide notifier
// or the one of the call that started the task.
func (m *Manager) send(t *Task, params TaskChanged) {
	m.mu.Lock()
	n := m.notify
	m.mu.Unlock()
	if n == nil {
		n = t.notify
	}
	if n == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
	defer cancel()
	if err := n(ctx, MethodTaskChanged, params); err != nil {
		m.log.Warn("task notification failed", "task", t.id, "err", err)
	}
}

// Get returns the task with id.
func (m *Manager) Get(id string) (*Task, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tasks[id]
	return t, ok
}

// List returns every task's snapshot in start order.
func (m *Manager) List() []Snapshot {
	m.mu.Lock()
	ts := make([]*Task, 0, len(m.order))
	for _, id := range m.order {
		ts = append(ts, m.tasks[id])
	}
	m.mu.Unlock()
	out := make([]Snapshot, len(ts))
	for i, t := range ts {
		out[i] = t.Snapshot()
	}
	return out
}

// IDs returns the ids of the tasks, running ones only when running is set.
func (m *Manager) IDs(running bool) []string {
	var ids []string
	for _, s := range m.List() {
		if !running || s.Status == Running {
			ids = append(ids, s.ID)
		}
	}
	return ids
}

// Stop ends a running task (its whole process group) and waits until it has
// ended or ctx is done.
func (m *Manager) Stop(ctx context.Context, id string) (Snapshot, error) {
	t, ok := m.Get(id)
	if !ok {
		return Snapshot{}, fmt.Errorf("no task %q", id)
	}
	t.stop()
	select {
	case <-t.done:
	case <-ctx.Done():
		return t.Snapshot(), ctx.Err()
	}
	return t.Snapshot(), nil
}

// AdoptGroup records the process group of a foreground command that left
// processes running, so that Close ends them with the session.
// Adopt takes over what a finished foreground command left running: its
// process group when still alive, and its process scope, so that Close
// ends them.
func (m *Manager) Adopt(cmd *exec.Cmd) {
	if cmd.Process != nil && GroupAlive(cmd.Process.Pid) {
		m.AdoptGroup(cmd.Process.Pid)
	}
	if s := lifetime.ScopeOf(cmd); s != "" {
		m.mu.Lock()
		m.scopes = append(m.scopes, s)
		m.mu.Unlock()
	}
}

func (m *Manager) AdoptGroup(pgid int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !slices.Contains(m.groups, pgid) {
		m.groups = append(m.groups, pgid)
	}
}

// OnClose makes Close run f before it stops the tasks: for a process kept
// for the session that is no task (a shell started ahead of its call).
// f runs at once when the manager is closed already.
func (m *Manager) OnClose(f func()) {
	m.mu.Lock()
	closed := m.closed
	if !closed {
		m.onClose = append(m.onClose, f)
	}
	m.mu.Unlock()
	if closed {
		f()
	}
}

// closeWait bounds how long Close waits for each killed task to be reaped.
const closeWait = 5 * time.Second

// Close stops every task, kills every process group a task or an adopted
// foreground command started, and refuses new tasks. It returns once the
// tasks have ended (or after a bounded wait).
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	ts := make([]*Task, 0, len(m.tasks))
	for _, id := range m.order {
		ts = append(ts, m.tasks[id])
	}
	groups := slices.Clone(m.groups)
	scopes := slices.Clone(m.scopes)
	onClose := m.onClose
	m.onClose = nil
	m.mu.Unlock()

	for _, f := range onClose {
		f()
	}
	var errs []error
	for _, t := range ts {
		t.stop()
	}
	defer func() {
		for _, t := range ts {
			t.out.Discard()
		}
	}()
	// A stopped task's reaper ends what is below it, those that cleared
	// their environment included; killing its group first would kill the
	// reaper before it had. So the tasks end first, then what they left.
	deadline := time.NewTimer(closeWait)
	defer deadline.Stop()
	for _, t := range ts {
		select {
		case <-t.done:
		case <-deadline.C:
			errs = append(errs, fmt.Errorf("task %s did not end after it was killed", t.id))
		}
		if len(errs) > 0 {
			break
		}
	}
	for _, t := range ts {
		// Processes a finished task left behind share its group.
		if t.cmd != nil && t.cmd.Process != nil {
			errs = append(errs, KillGroup(t.cmd.Process.Pid))
		}
	}
	for _, g := range groups {
		errs = append(errs, KillGroup(g))
	}
	// Processes that left their group (setsid, daemons) are found by scope.
	for _, t := range ts {
		if t.cmd != nil {
			scopes = append(scopes, lifetime.ScopeOf(t.cmd))
		}
	}
	lifetime.KillScopes(scopes)
	return errors.Join(errs...)
}

// ID is the task's id.
func (t *Task) ID() string { return t.id }

// Command is what the task runs.
func (t *Task) Command() string { return t.command }

// Output is the task's output so far.
func (t *Task) Output() *Output { return t.out }

// Done is closed when the task has ended.
func (t *Task) Done() <-chan struct{} { return t.done }

// Wait blocks until the task ends or ctx is done.
func (t *Task) Wait(ctx context.Context) error {
	select {
	case <-t.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// stop asks a running task to end; it kills the whole process group.
func (t *Task) stop() {
	t.mu.Lock()
	if t.status == Running {
		t.stopRequested = true
	}
	t.mu.Unlock()
	t.cancel()
}

// Snapshot returns the task's current state.
func (t *Task) Snapshot() Snapshot {
	t.mu.Lock()
	defer t.mu.Unlock()
	return Snapshot{
		ID: t.id, Kind: t.kind, Command: t.command, Status: t.status, ExitCode: t.exitCode,
		StartedAt: t.started, EndedAt: t.ended, Failure: t.failure, OutputBytes: t.out.Total(),
	}
}
