package shell

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/tasks"
	"github.com/toolhost/toolhost/workspace"
)

//go:embed powershell.md
var powerShellDescription string

// PowerShellInput is the input of PowerShell, as in Claude Code 2.1.
type PowerShellInput struct {
	Command         string   `json:"command" jsonschema:"The PowerShell command to run, in the folder the last successful command ended in (at first the workspace root)."`
	Timeout         *float64 `json:"timeout,omitempty" jsonschema:"Timeout in milliseconds: default 120000, at most 600000 (for a background command: default 1800000, at most 7200000)." schema:"minimum=0"`
	Description     string   `json:"description,omitempty" jsonschema:"What the command does, in a few words, for the user."`
	RunInBackground bool     `json:"run_in_background,omitempty" jsonschema:"Start the command as a background task and return its id at once; read it with TaskOutput, stop it with TaskStop."`
}

var powerShellSchema = tools.SchemaOf[PowerShellInput](nil)

// PowerShell runs PowerShell commands in the workspace root: Claude Code's
// tool for Windows without Git Bash (OfferPowerShell). It shares Bash's
// process handling: the same lifetime seam (Job Object, cancel, timeout),
// background tasks and output limits.
type PowerShell struct {
	ws       *workspace.Workspace
	settings func() *settings.Settings
	tasks    *tasks.Manager
	log      *slog.Logger
	// program finds the PowerShell to run (powerShellProgram; a fake in
	// tests).
	program func() (string, error)
	// cwd is the folder the next command starts in (Set-Location carries
	// over, as Bash's cd does).
	cwd workDirs
}

// NewPowerShell returns the PowerShell tool; its arguments are NewBash's.
func NewPowerShell(ws *workspace.Workspace, s func() *settings.Settings, m *tasks.Manager, log *slog.Logger) *PowerShell {
	if s == nil {
		s = settings.Defaults
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &PowerShell{ws: ws, settings: s, tasks: m, log: log, program: powerShellProgram}
}

func (*PowerShell) Name() string                    { return "PowerShell" }
func (*PowerShell) Description() string             { return powerShellDescription }
func (*PowerShell) InputSchema() json.RawMessage    { return powerShellSchema.JSON() }
func (*PowerShell) SideEffect() tools.SideEffect    { return tools.SideEffectNetwork }
func (*PowerShell) Risk(json.RawMessage) tools.Risk { return tools.RiskHigh }

// Docs documents PowerShell.
func (*PowerShell) Docs() tools.Docs {
	return tools.Docs{
		Short: "Run a PowerShell command (Windows without Git Bash), in the foreground with a timeout or as a background task.",
		Long:  powerShellDescription,
		Examples: []tools.Example{
			{Title: "Show the working tree's state", Input: json.RawMessage(`{"command":"git status","description":"Show working tree status"}`)},
			{Title: "Start a dev server in the background", Input: json.RawMessage(`{"command":"npm run dev","run_in_background":true,"description":"Start the dev server"}`)},
		},
	}
}

// Access: the command for PowerShell(...) rules; shell calls of a batch
// run one at a time.
func (*PowerShell) Access(in json.RawMessage) tools.Access {
	var p PowerShellInput
	_ = json.Unmarshal(in, &p)
	return tools.Access{Command: p.Command, Exclusive: []string{"shell"}}
}

// Preview shows the command in a permission prompt.
func (*PowerShell) Preview(_ context.Context, in json.RawMessage) *tools.Preview {
	var p PowerShellInput
	if json.Unmarshal(in, &p) != nil {
		return nil
	}
	return commandPreview(p.Command, p.RunInBackground)
}

func (p *PowerShell) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var in PowerShellInput
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return tools.ErrorResult("the input of PowerShell is not valid: %v. Send {\"command\": \"...\"}.", err), nil
	}
	if strings.TrimSpace(in.Command) == "" {
		return tools.ErrorResult("command is empty. Give the PowerShell command to run."), nil
	}
	program, err := p.program()
	if err != nil {
		return tools.ErrorResult("%v.", err), nil
	}
	root := p.ws.Root()
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return tools.ErrorResult("the workspace root %s is not an existing folder, so commands cannot run in it. Ask the user to open an existing folder.", root), nil
	}
	s := p.settings()
	env := commandEnv(os.Environ(), s)
	dir := p.cwd.dir(p.ws)
	if in.RunInBackground {
		return p.startBackground(call, &in, dir, env, program, powerShellArgs(in.Command))
	}
	cwdFile, err := newCwdFile("")
	if err != nil {
		return nil, fmt.Errorf("preparing PowerShell: %w", err)
	}
	defer os.Remove(cwdFile)
	args := powerShellArgs(withPowerShellCwdReport(in.Command, cwdFile))
	timeout, maxTimeout, maxOutput := limits(s, in.Timeout)
	saved := newSpill(root, maxOutput)
	spec := runSpec{
		name: program, args: args, dir: dir, env: env,
		timeout: timeout, maxOutput: maxOutput, progress: call.Progress, spill: saved,
	}
	if p.tasks != nil {
		spec.adopt = p.tasks.Adopt
		spec.background = backgroundTaker(p.tasks, p.log, call, "powershell", in.Command)
	}
	res, savedPath, err := runSaved(ctx, p.ws, spec, "PowerShell")
	if err != nil {
		return nil, err
	}
	if r := inBackground(res, savedPath, timeout); r != nil {
		return r, nil
	}
	r := finishedResult(in.Command, res, saved, savedPath, timeout, maxTimeout, false)
	// Only a command that succeeded moves the next one, as with Bash.
	if !r.IsError {
		if note := p.cwd.keep(p.ws, cwdFile); note != "" {
			r.Content = append(r.Content, tools.Content{Type: "text", Text: note})
		}
	}
	return r, nil
}

// withPowerShellCwdReport makes a command write the folder it ends in to
// file, so that the next call starts there (Bash's withCwdReport). The
// report follows the command on lines of its own, so PowerShell's messages
// keep the command's line numbers, and it keeps how the command ended:
// the success ($?) of its last statement and a native program's exit code
// ($LASTEXITCODE), which then become PowerShell's exit code as without the
// report. The folder is written with .NET, without a byte-order mark in
// Windows PowerShell 5.1 and PowerShell 7 alike. A command that exits or
// throws writes nothing, and the folder stays as it was.
func withPowerShellCwdReport(command, file string) string {
	return command + "\n" +
		"$toolhostOk = $?; $toolhostCode = $LASTEXITCODE\n" +
		"[System.IO.File]::WriteAllText(" + powerShellQuote(file) + ", (Get-Location).ProviderPath)\n" +
		"if (-not $toolhostOk) { if ($toolhostCode) { exit $toolhostCode }; exit 1 }"
}

// powerShellQuote quotes s as a PowerShell verbatim string: within single
// quotes only a quote is special, doubled, and PowerShell takes the
// typographic single quotes for ASCII ones.
func powerShellQuote(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		switch r {
		case '\'', '\u2018', '\u2019', '\u201a', '\u201b':
			b.WriteRune(r)
		}
		b.WriteRune(r)
	}
	b.WriteByte('\'')
	return b.String()
}

// startBackground starts the command as a task and returns its id.
func (p *PowerShell) startBackground(call *tools.Call, in *PowerShellInput, dir string, env []string, program string, args []string) (*tools.Result, error) {
	return startTask(p.tasks, call, "powershell", &BashInput{Command: in.Command, Timeout: in.Timeout}, dir, nil, env, program, args)
}
