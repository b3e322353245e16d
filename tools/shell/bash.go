package shell

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/tasks"
	"github.com/toolhost/toolhost/workspace"
)

//go:embed bash.md
var bashDescription string

// Timeouts of background commands (Claude Code's limits).
const (
	DefaultBackgroundTimeout = 30 * time.Minute
	MaxBackgroundTimeout     = 2 * time.Hour
)

// BashInput is the input of Bash, as in Claude Code.
type BashInput struct {
	Command         string   `json:"command" jsonschema:"The command to run with bash -c, in the folder the last call ended in (the workspace root at first)."`
	Timeout         *float64 `json:"timeout,omitempty" jsonschema:"Timeout in milliseconds: default 120000, at most 600000 (for a background command: default 1800000, at most 7200000)."`
	Description     string   `json:"description,omitempty" jsonschema:"What the command does, in a few words, for the user."`
	RunInBackground bool     `json:"run_in_background,omitempty" jsonschema:"Start the command as a background task and return its id at once; read it with TaskOutput, stop it with TaskStop."`
	// DangerouslyDisableSandbox is accepted for compatibility and ignored:
	// the sandbox (bash.sandbox) is the user's choice, not the model's.
	DangerouslyDisableSandbox bool `json:"dangerouslyDisableSandbox,omitempty" jsonschema:"Accepted for compatibility and ignored: whether commands run in a sandbox is the user's setting (bash.sandbox), never the model's."`
}

// bashStdin is the input field bash.backgroundStdin adds to BashInput:
// text fed to a background command. It is kept apart so that BashInput
// stays Claude Code's shape.
type bashStdin struct {
	Stdin *string `json:"stdin,omitempty" jsonschema:"Text fed to the standard input of a background command (with run_in_background), which then sees end of input."`
}

// bashStdinInput is the input Bash's schema describes with
// bash.backgroundStdin on.
type bashStdinInput struct {
	BashInput
	bashStdin
}

// BashOutput is the structured result of Bash, in Claude Code's shape
// (stdout carries the combined output; stderr is always empty).
type BashOutput struct {
	Stdout           string `json:"stdout"`
	Stderr           string `json:"stderr"`
	Interrupted      bool   `json:"interrupted"`
	ExitCode         int    `json:"exitCode"`
	BackgroundTaskID string `json:"backgroundTaskId,omitempty"`
	TimedOutAfterMs  int64  `json:"timedOutAfterMs,omitempty"`
	// PersistedOutputPath and PersistedOutputSize (bytes) name the file
	// holding the whole of an output too long for the result.
	PersistedOutputPath string `json:"persistedOutputPath,omitempty"`
	PersistedOutputSize int64  `json:"persistedOutputSize,omitempty"`
}

// bashSchema is Claude Code's; bashStdinSchema adds stdin, for
// bash.backgroundStdin.
var (
	bashSchema      = tools.SchemaOf[BashInput](nil)
	bashStdinSchema = tools.SchemaOf[bashStdinInput](nil)
)

// Bash runs shell commands in the workspace root.
type Bash struct {
	ws       *workspace.Workspace
	settings func() *settings.Settings
	tasks    *tasks.Manager
	log      *slog.Logger

	// cwd is the folder the next command starts in (cd carries over).
	cwd workDirs

	// spares keeps the bash started ahead of the next call (spare.go);
	// nil without a task manager, which would end it with the session.
	spares *spares
}

// NewBash returns the Bash tool. settings is read on every call; tasks
// runs background commands and ends leftover processes at the session's
// close (nil disables run_in_background).
func NewBash(ws *workspace.Workspace, s func() *settings.Settings, m *tasks.Manager, log *slog.Logger) *Bash {
	if s == nil {
		s = settings.Defaults
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	b := &Bash{ws: ws, settings: s, tasks: m, log: log}
	if m != nil {
		b.spares = &spares{}
		m.OnClose(b.spares.close)
	}
	return b
}

func (*Bash) Name() string        { return "Bash" }
func (*Bash) Description() string { return bashDescription }

// InputSchema is Claude Code's; with bash.backgroundStdin it also lists
// stdin.
func (b *Bash) InputSchema() json.RawMessage {
	if s := b.settings(); s != nil && s.Bash.BackgroundStdin {
		return bashStdinSchema.JSON()
	}
	return bashSchema.JSON()
}
func (*Bash) SideEffect() tools.SideEffect { return tools.SideEffectNetwork }

// Docs documents Bash.
func (*Bash) Docs() tools.Docs {
	return tools.Docs{
		Short: "Run a bash command (foreground with a timeout, or as a background task); cd carries over inside the workspace.",
		Long:  bashDescription,
		Examples: []tools.Example{
			{Title: "Run the tests", Input: json.RawMessage(`{"command":"go test ./...","description":"Run all Go tests"}`)},
			{Title: "Start a dev server in the background", Input: json.RawMessage(`{"command":"npm run dev","run_in_background":true,"description":"Start the dev server"}`)},
			{Title: "A long build with a larger timeout", Input: json.RawMessage(`{"command":"make release","timeout":600000}`)},
		},
	}
}

// Access: the command for Bash(...) rules and the folder it starts in;
// shell calls of a batch run one at a time.
func (b *Bash) Access(in json.RawMessage) tools.Access {
	var p BashInput
	_ = json.Unmarshal(in, &p)
	return tools.Access{Command: p.Command, Dir: b.startDir(), Exclusive: []string{"shell"}}
}

// startDir is the folder the next command starts in when a cd in an
// earlier one moved it away from the root; "" at the root.
func (b *Bash) startDir() string {
	if dir := b.workDir(); dir != b.ws.Root() {
		return dir
	}
	return ""
}

// Preview shows the command in a permission prompt.
func (*Bash) Preview(_ context.Context, in json.RawMessage) *tools.Preview {
	var p BashInput
	if json.Unmarshal(in, &p) != nil {
		return nil
	}
	return commandPreview(p.Command, p.RunInBackground)
}

// commandPreview is what a permission prompt shows of a shell command,
// Bash's or PowerShell's.
func commandPreview(command string, background bool) *tools.Preview {
	if background {
		command += "\n# runs in the background"
	}
	return &tools.Preview{Kind: "command", Text: command}
}

// Risk rates the command from the permission rules' own reading of it
// (commandRisk): low for commands that only look or wait, medium for
// ordinary work, high for what is hard to undo or hides what it runs. A command left running in the background is at least medium: it
// outlives the call the user approves.
func (b *Bash) Risk(in json.RawMessage) tools.Risk {
	var p BashInput
	if json.Unmarshal(in, &p) != nil || strings.TrimSpace(p.Command) == "" {
		return tools.RiskHigh
	}
	risk := commandRisk(p.Command, b.workDir())
	if p.RunInBackground && risk == tools.RiskLow {
		return tools.RiskMedium
	}
	return risk
}

func (b *Bash) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var in BashInput
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return tools.ErrorResult("the input of Bash is not valid: %v. Send {\"command\": \"...\"}.", err), nil
	}
	if strings.TrimSpace(in.Command) == "" {
		return tools.ErrorResult("command is empty. Give the shell command to run."), nil
	}
	s := b.settings()
	if fi, err := os.Stat(b.ws.Root()); err != nil || !fi.IsDir() {
		return tools.ErrorResult("the workspace root %s is not an existing folder, so commands cannot run in it. Ask the user to open an existing folder.", b.ws.Root()), nil
	}
	env := commandEnv(os.Environ(), s)
	dir := b.workDir()
	var stdin bashStdin
	_ = json.Unmarshal(call.Input, &stdin)
	if stdin.Stdin != nil && !in.RunInBackground {
		return tools.ErrorResult("stdin is for background commands: add run_in_background: true, or pipe the text in the command itself (printf '...' | cmd)."), nil
	}
	if in.RunInBackground {
		name, args, err := sandboxArgs(s, b.ws.RealFolders(), dir, in.Command)
		if err != nil {
			return tools.ErrorResult("%v.", err), nil
		}
		return b.startBackground(call, &in, dir, stdin.Stdin, env, name, args)
	}
	timeout, maxTimeout, maxOutput := limits(s, in.Timeout)
	// The sandbox has a /tmp of its own: the folder report then goes
	// through a folder of this call's own in the workspace's state folder,
	// which the sandbox lets it write.
	cwdDir := ""
	var writable []string
	if s.Bash.Sandbox {
		if out, err := spillDir(b.ws.Root()); err == nil {
			if cwdDir, err = os.MkdirTemp(out, "cwd-"); err != nil {
				cwdDir = ""
			} else {
				defer os.RemoveAll(cwdDir)
				writable = append(writable, cwdDir)
			}
		}
	}
	cwdFile, err := newCwdFile(cwdDir)
	if err != nil {
		return nil, fmt.Errorf("preparing bash: %w", err)
	}
	defer os.Remove(cwdFile)
	name, args, err := sandboxArgs(s, b.ws.RealFolders(), dir, withCwdReport(in.Command, cwdFile), writable...)
	if err != nil {
		return tools.ErrorResult("%v.", err), nil
	}
	saved := newSpill(b.ws.Root(), maxOutput)
	spec := runSpec{
		name: name, args: args, dir: dir, env: env,
		timeout: timeout, maxOutput: maxOutput, progress: call.Progress, spill: saved,
	}
	if b.tasks != nil {
		spec.adopt = b.tasks.Adopt
		if !onlyWaits(in.Command) {
			spec.background = b.toBackground(call, in.Command)
		}
	}
	// A spare takes a plain `bash -c` (no sandbox) whose script exec could
	// pass: a NUL ends an argument, and a shell would drop it silently.
	if b.spares != nil && !s.Bash.Sandbox && !strings.ContainsRune(in.Command, 0) && sparesUsable() {
		spec.spare = b.spares.take(ctx, spareKey(name, dir, env))
		// The next spare starts where the next call will: after this
		// call's cd has been kept.
		defer func() {
			next := b.workDir()
			b.spares.refill(spareKey(name, next, env), name, next, env)
		}()
	}
	res, savedPath, err := runSaved(ctx, b.ws, spec, "bash")
	if err != nil {
		return nil, err
	}
	if r := inBackground(res, savedPath, timeout); r != nil {
		return r, nil
	}
	if msg := sandboxFailure(s, res.output, res.exitCode); msg != "" {
		return tools.ErrorResult("%s.", msg), nil
	}
	r := finishedResult(in.Command, res, saved, savedPath, timeout, maxTimeout, s.Bash.CompressOutput)
	// As in Claude Code, only a command that succeeded moves the next one:
	// after a failed `cd build && make`, a relative command must not run in
	// a folder the model did not expect it to.
	if !r.IsError {
		if note := b.keepCwd(cwdFile); note != "" {
			r.Content = append(r.Content, tools.Content{Type: "text", Text: note})
		}
	}
	return r, nil
}

// runSaved runs a shell tool's foreground command (runForeground) and
// closes its spill: the output turned into UTF-8 (decodeCommandOutput) and
// the path of the file holding the whole of it, when it was saved. A
// cancelled call returns ctx's error. What the command changed in files
// the editor has open goes to ws's change journal as this call's change
// (WatchOpenFiles), so a rewind of its turn covers it.
func runSaved(ctx context.Context, ws *workspace.Workspace, spec runSpec, shell string) (runResult, string, error) {
	watch := ws.WatchOpenFiles(ctx)
	res, err := runForeground(ctx, spec)
	watch.Record(ctx)
	savedPath := spec.spill.close()
	if err != nil {
		if ctx.Err() != nil {
			return runResult{}, "", ctx.Err()
		}
		return runResult{}, "", fmt.Errorf("running %s: %w", shell, err)
	}
	res.output = decodeCommandOutput(res.output)
	return res, savedPath, nil
}

// inBackground is the result of a foreground command a task took over at
// its timeout, nil for one that ended. The task keeps the output from
// there on and the result names no saved file: a file left would only
// fill the disk.
func inBackground(res runResult, savedPath string, timeout time.Duration) *tools.Result {
	if res.backgroundTask == "" {
		return nil
	}
	if savedPath != "" {
		_ = os.Remove(savedPath)
	}
	return movedToBackground(res, timeout)
}

// finishedResult is the result of a foreground command that ended
// (bashResult), naming the file saved holds its whole output in when it
// was too long for the result; compress asks for compressed output when
// nothing was saved.
func finishedResult(command string, res runResult, saved *spill, savedPath string, timeout, maxTimeout time.Duration, compress bool) *tools.Result {
	if savedPath != "" {
		res.output = saved.render(savedPath)
	}
	how := "set run_in_background: true and follow it with TaskOutput"
	if timeout < maxTimeout {
		how = fmt.Sprintf("pass a larger timeout (at most %d ms), or %s", maxTimeout.Milliseconds(), how)
	}
	r := bashResult(command, res, timeout, how, compress && savedPath == "")
	if savedPath != "" {
		out := r.Structured.(BashOutput)
		out.PersistedOutputPath, out.PersistedOutputSize = savedPath, saved.size()
		r.Structured = out
	}
	return r
}

// onlyWaits reports whether a command does nothing but wait (sleep N):
// at its timeout it is killed rather than moved to the background, as in
// Claude Code, since nothing would come of it there.
func onlyWaits(command string) bool {
	f := strings.Fields(command)
	return len(f) > 0 && f[0] == "sleep"
}

// toBackground is runSpec.background for a call (backgroundTaker).
func (b *Bash) toBackground(call *tools.Call, command string) func(*exec.Cmd, *tasks.Output, <-chan error, func()) string {
	return backgroundTaker(b.tasks, b.log, call, "bash", command)
}

// backgroundTaker is runSpec.background for a call of a shell tool (kind
// "bash", "powershell"): the command still running at its timeout becomes
// a background task of m with the background timeout.
func backgroundTaker(m *tasks.Manager, log *slog.Logger, call *tools.Call, kind, command string) func(*exec.Cmd, *tasks.Output, <-chan error, func()) string {
	return func(cmd *exec.Cmd, out *tasks.Output, waitErr <-chan error, kill func()) string {
		spec := tasks.Spec{Kind: kind, Command: command, Timeout: DefaultBackgroundTimeout}
		if call.Host != nil {
			spec.Notify = call.Host.Notify
		}
		t, err := m.TakeOver(spec, cmd, out, waitErr, kill)
		if err != nil {
			log.Warn("a timed-out command could not move to the background", "err", err)
			return ""
		}
		return t.ID()
	}
}

// movedToBackground is the result of a command that outlived its timeout
// and now runs as a background task.
func movedToBackground(res runResult, timeout time.Duration) *tools.Result {
	text := res.output
	if strings.TrimSpace(text) == "" {
		text = "(no output yet)"
	}
	text += fmt.Sprintf("\n\n[The command was still running after %d ms, so it was moved to the background as task %s and keeps running (for at most %s). Read its output with TaskOutput (task_id %q), stop it with TaskStop; you are not told when it ends.]",
		timeout.Milliseconds(), res.backgroundTask, DefaultBackgroundTimeout, res.backgroundTask)
	r := tools.TextResult(text)
	r.Structured = BashOutput{Stdout: res.output, BackgroundTaskID: res.backgroundTask, TimedOutAfterMs: timeout.Milliseconds()}
	return r
}

// workDir is where the next command starts (workDirs.dir).
func (b *Bash) workDir() string { return b.cwd.dir(b.ws) }

// newCwdFile makes the empty file a command writes its last working folder
// to, in dir ("" for the temporary folder).
func newCwdFile(dir string) (string, error) {
	f, err := os.CreateTemp(dir, "toolhost-cwd-*")
	if err != nil {
		return "", err
	}
	name := f.Name()
	return name, f.Close()
}

// withCwdReport makes a command write the folder it ends in to file (as
// Claude Code's shell does, so that `cd` carries over to the next call).
// The trap sits on the command's first line, so the line numbers in bash's
// own messages stay the command's.
func withCwdReport(command, file string) string {
	return "trap '[ -e " + shellQuote(file) + " ] && pwd >| " + shellQuote(file) + " 2>/dev/null' EXIT; " + command
}

// shellQuote quotes s for a POSIX shell, inside a single-quoted trap text.
func shellQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`", "'", `'\''`).Replace(s) + `"`
}

// keepCwd remembers the folder a command ended in (workDirs.keep).
func (b *Bash) keepCwd(file string) (note string) { return b.cwd.keep(b.ws, file) }

// bashResult turns how a command ended into the tool's result; longer says
// how to let a timed-out command run longer.
func bashResult(command string, res runResult, timeout time.Duration, longer string, compress bool) *tools.Result {
	output := res.output
	if compress && !res.timedOut {
		output, _ = compressOutput(command, output)
	}
	text := output
	if strings.TrimSpace(text) == "" {
		text = "(no output)"
	}
	out := BashOutput{Stdout: output, ExitCode: res.exitCode}
	isError := false
	switch {
	case res.timedOut:
		isError = true
		out.TimedOutAfterMs = timeout.Milliseconds()
		text += fmt.Sprintf("\n\n[The command timed out after %d ms and was killed with every process it started. To let it run longer, %s.]",
			timeout.Milliseconds(), longer)
	case res.signal != "":
		isError = true
		text += fmt.Sprintf("\n\n[The command was killed by signal %s]", res.signal)
	case res.exitCode != 0:
		isError = true
		text += fmt.Sprintf("\n\n[Exit code %d]", res.exitCode)
	}
	r := tools.TextResult(text)
	r.IsError = isError
	r.Structured = out
	return r
}

// startBackground starts the command as a task and returns its id.
func (b *Bash) startBackground(call *tools.Call, in *BashInput, dir string, stdin *string, env []string, name string, args []string) (*tools.Result, error) {
	return startTask(b.tasks, call, "bash", in, dir, stdin, env, name, args)
}

// startTask starts a shell tool's command (kind "bash", "powershell") as a
// task of m and returns its id.
func startTask(m *tasks.Manager, call *tools.Call, kind string, in *BashInput, dir string, stdin *string, env []string, name string, args []string) (*tools.Result, error) {
	if m == nil {
		return tools.ErrorResult("background commands are not available in this session; run the command without run_in_background."), nil
	}
	timeout := DefaultBackgroundTimeout
	if in.Timeout != nil && *in.Timeout > 0 {
		timeout = min(time.Duration(*in.Timeout*float64(time.Millisecond)), MaxBackgroundTimeout)
	}
	spec := tasks.Spec{
		Kind: kind, Command: in.Command, Name: name, Args: args,
		Dir: dir, Env: env, Timeout: timeout,
	}
	if stdin != nil {
		spec.Stdin = *stdin
	}
	if call.Host != nil {
		spec.Notify = call.Host.Notify
	}
	t, err := m.Start(spec)
	if err != nil {
		return tools.ErrorResult("could not start the background command: %v.", err), nil
	}
	r := tools.TextResult(fmt.Sprintf("Started background task %s. Read its output with TaskOutput (task_id %q) and stop it with TaskStop. It is stopped after %s or when the session ends.",
		t.ID(), t.ID(), timeout))
	r.Structured = BashOutput{BackgroundTaskID: t.ID()}
	return r, nil
}
