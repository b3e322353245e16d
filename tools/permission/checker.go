// Package permission decides whether a tool call may run: the session's
// permission mode, the allow/ask/deny rules of the settings (Claude Code's
// syntax), where the call's paths lie relative to the workspace, and the
// tool's risk. When the answer is "ask" it prompts the user through the
// Host, and remembers "Always allow" answers for the session and, by
// default, in <root>/.toolhost/settings.local.json.
//
// The order of the decision:
//
//  1. a deny rule that matches any part of the call denies it, and so
//     does a bash.blockedCommands pattern (each on the simple commands
//     bash would run, see package shellcmd);
//  2. a write outside the workspace is refused (unless
//     permissions.allowWritesOutsideWorkspace, then it is asked even in
//     bypassPermissions mode, unless an allow rule names the path); a
//     write through a link in the workspace leading outside is refused
//     even then, naming the real path to give instead;
//  3. plan mode refuses every tool that is not read-only, pointing the
//     model at ExitPlanMode (writing the plan file is allowed);
//     a write to a file that decides what may run (.toolhost/ settings and
//     hooks, .mcp.json, .git/hooks/, .git/config) asks, whatever the rules,
//     and is refused in dontAsk; only bypassPermissions lets it through
//     (protected.go);
//  4. an ask rule asks (except in bypassPermissions);
//  5. bypassPermissions allows;
//  6. allow rules (the settings' and this session's) allow;
//  7. a read outside the workspace asks, naming its real path; an allowed
//     one carries the approval of the file there (approvedReads), which
//     is all the read may open;
//  8. acceptEdits allows edits inside the workspace;
//  9. low-risk tools (side effect none, state or blocking) are allowed;
//  10. edits the editor shows for review (edit.reviewInEditor) are allowed,
//     the review being the prompt;
//  11. anything else asks; dontAsk turns that into a denial.
//
// Decide is that decision alone; Check adds the prompt.
//
// Where things are: checker.go holds this order; rules.go matches rules
// against a Bash command as package shellcmd reads it (the simple commands
// bash would run, on mvdan.cc/sh's syntax tree) or as package pwsh reads a
// PowerShell one (powershell.go); protected.go judges the writes to the
// files package protect lists; prompt.go asks.
package permission

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/toolhost/toolhost/internal/pathutil"
	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/permission/shellcmd"
	"github.com/toolhost/toolhost/workspace"
)

// PlanFile is where the plan is written in plan mode, relative to the first
// workspace root. Plan mode allows writing it; ExitPlanMode reads it when
// the model does not pass the plan inline.
const PlanFile = ".toolhost/plan.md"

// Workspace is what the checker needs of the workspace; *workspace.Workspace
// implements it.
type Workspace interface {
	// Resolve makes a tool's path absolute (relative to the first root).
	Resolve(p string) (string, error)
	// Inside reports whether an absolute path lies inside a root or an
	// additional directory once symlinks are resolved.
	Inside(abs string) bool
	Roots() []string
	// RealRoots are where the roots led when they were opened: the folders
	// the roots stand for, however their names are re-pointed since.
	RealRoots() []string
	// FolderReal is where a workspace folder (as given) leads for the
	// jail: the folder it was pinned to when the workspace took it.
	FolderReal(dir string) string
	Root() string
}

// RuleSaver persists "Always allow" rules; *settings.Store implements it.
type RuleSaver interface {
	SaveLocalRule(root, rule string) error
}

// Options configure a Checker.
type Options struct {
	Workspace Workspace
	// Settings returns the current settings; nil means the defaults.
	Settings func() *settings.Settings
	// Saver saves "Always allow" rules when permissions.saveAlwaysAllow is
	// on; nil keeps them for the session only.
	Saver RuleSaver
	// Mode is the initial permission mode; empty means the settings'
	// permissions.defaultMode.
	Mode string
	Log  *slog.Logger
	// OnModeChange, when set, is called with the new mode after each SetMode
	// (a choice of the user's: the editor, or a prompt they answered).
	OnModeChange func(mode string)
}

// Checker implements tools.PermissionChecker and tools.ModeController for
// one session. Safe for concurrent use.
type Checker struct {
	ws       Workspace
	settings func() *settings.Settings
	saver    RuleSaver
	log      *slog.Logger
	home     string
	onMode   func(string)

	// compiled caches the rules of the last settings snapshot seen.
	compiled atomic.Pointer[compiledRules]

	mu sync.Mutex
	// mode is the session's permission mode.
	mode string
	// sessionAllow are rules from "Always allow" answers in this session.
	sessionAllow []string
}

// compiledRules are a settings snapshot's rule lists and blocked
// command patterns, parsed.
type compiledRules struct {
	src              *settings.Settings
	allow, ask, deny ruleList
	blocked          []*regexp.Regexp
}

// rulesOf returns st's rules, parsed once per snapshot (snapshots are
// immutable, so the pointer identifies them).
func (c *Checker) rulesOf(st *settings.Settings) *compiledRules {
	if cr := c.compiled.Load(); cr != nil && cr.src == st {
		return cr
	}
	cr := &compiledRules{
		src:   st,
		allow: compileRules(st.Permissions.Allow),
		ask:   compileRules(st.Permissions.Ask),
		deny:  compileRules(st.Permissions.Deny),
	}
	for _, p := range st.Bash.BlockedCommands {
		// The settings store has reported and dropped invalid patterns.
		if re, err := regexp.Compile(p); err == nil {
			cr.blocked = append(cr.blocked, re)
		}
	}
	c.compiled.Store(cr)
	return cr
}

var (
	_ tools.PermissionChecker = (*Checker)(nil)
	_ tools.ModeController    = (*Checker)(nil)
)

// New returns a checker.
func New(opts Options) *Checker {
	c := &Checker{ws: opts.Workspace, settings: opts.Settings, saver: opts.Saver, log: opts.Log, onMode: opts.OnModeChange}
	if c.settings == nil {
		c.settings = settings.Defaults
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	c.home, _ = os.UserHomeDir()
	c.mode = tools.ModeDefault
	if m := c.settings().Permissions.DefaultMode; validMode(m) {
		c.mode = m
	}
	if validMode(opts.Mode) {
		c.mode = opts.Mode
	}
	return c
}

func validMode(m string) bool {
	return slices.Contains(settings.PermissionModes, m)
}

// Mode returns the current permission mode.
func (c *Checker) Mode() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mode
}

// SetMode changes the permission mode; an unknown mode is an error that
// lists the valid ones.
func (c *Checker) SetMode(mode string) error {
	if !validMode(mode) {
		return fmt.Errorf("unknown permission mode %q: use one of %s", mode, strings.Join(settings.PermissionModes, ", "))
	}
	c.mu.Lock()
	c.mode = mode
	c.mu.Unlock()
	if c.onMode != nil {
		c.onMode(mode)
	}
	return nil
}

// SessionRules returns the rules "Always allow" added in this session.
func (c *Checker) SessionRules() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.sessionAllow)
}

// Decide is the decision on call without asking anybody: what Check would
// do before it prompts. It is the only place that decides whether a call
// needs the user; listTools' autoAllowed and toolhost/checkPermission read
// it. In dontAsk mode an "ask" is a denial.
func (c *Checker) Decide(host tools.Host, call tools.PermissionCall) tools.PermissionDecision {
	d := c.newDecision(host, call)
	v := d.decide()
	if v.Verdict != tools.VerdictDeny {
		v.ApprovedReads = d.approvedReads()
	}
	return v
}

// Check decides on one call and asks the user when the decision is "ask".
// A denial's Message says why and what to do next; it carries no "Error: "
// prefix (the pipeline adds it). The error is non-nil only when ctx ended
// before or while asking.
func (c *Checker) Check(ctx context.Context, host tools.Host, call tools.PermissionCall) (tools.PermissionOutcome, error) {
	if err := ctx.Err(); err != nil {
		return tools.PermissionOutcome{}, err
	}
	d := c.newDecision(host, call)
	v := d.decide()
	switch v.Verdict {
	case tools.VerdictAllow:
		return tools.PermissionOutcome{Allow: true, Review: v.Review, ApprovedReads: d.approvedReads()}, nil
	case tools.VerdictAsk:
		// What the prompt names is what an approval lets the call read:
		// the files there now, before the user answers.
		approved := d.approvedReads()
		out, err := d.ask(ctx, v.Reason)
		if out.Allow {
			out.ApprovedReads = approved
		}
		return out, err
	}
	return tools.PermissionOutcome{Message: v.Reason}, nil
}

// savedOutput reports whether a read is of an output toolhost saved for this
// workspace (a command's output too long for its result), which lives in
// the workspace's state folder: the result told the model to Read it, as
// Claude Code's tool-results files are read without asking.
func (d *decision) savedOutput(p resolvedPath) bool {
	state, err := workspace.StateDir(d.c.ws.Root())
	return err == nil && pathutil.Within(pathutil.RealPath(filepath.Join(state, "output")), p.real)
}

// approvedReads are the approvals of the call's reads outside the
// workspace, by their real paths, for a call allowed (a link inside the
// workspace pointing outside is read only under one).
func (d *decision) approvedReads() []workspace.ApprovedRead {
	var out []workspace.ApprovedRead
	for _, p := range d.sub.reads {
		if p.inside {
			continue
		}
		if a, ok := workspace.ApproveRead(p.abs, p.real); ok {
			out = append(out, a)
		}
	}
	return out
}

// AutoAllowed reports whether a call of t runs without asking the user in
// the current mode, before rules about its input are looked at: a call
// with an empty input that, for a tool that edits files, writes a file at
// the workspace root (listTools' autoAllowed). It is Decide's answer.
func (c *Checker) AutoAllowed(host tools.Host, t tools.Tool) bool {
	call := tools.PermissionCall{Tool: t, Input: json.RawMessage("{}")}
	if t.SideEffect() == tools.SideEffectMutating {
		call.Access.WritePaths = []string{filepath.Join(c.ws.Root(), "file")}
	}
	return c.Decide(host, call).Verdict == tools.VerdictAllow
}

func (c *Checker) newDecision(host tools.Host, call tools.PermissionCall) *decision {
	if host == nil {
		host = tools.NoHost{}
	}
	d := &decision{c: c, host: host, call: call, st: c.settings(), mode: c.Mode(), name: call.Tool.Name()}
	d.subject()
	return d
}

// decision is the state of one Check.
type decision struct {
	c    *Checker
	host tools.Host
	call tools.PermissionCall
	st   *settings.Settings
	mode string
	name string
	sub  subject
	pm   *pathMatcher
	// protected is set while asking about a write to a protected file: no
	// rule is suggested, since none would apply.
	protected bool
}

func (d *decision) subject() {
	a := d.call.Access
	d.sub = subject{tool: d.name, domain: a.Domain}
	if a.Command != "" {
		var sc shellcmd.Command
		if d.sub.powerShell = d.name == "PowerShell"; d.sub.powerShell {
			sc = readPowerShell(a.Command, a.Dir)
		} else {
			sc = shellcmd.Parse(a.Command, a.Dir)
		}
		d.sub.command = &sc
	}
	extra := d.additionalDirectories()
	d.sub.reads = d.resolve(a.ReadPaths, extra)
	d.sub.writes = d.resolve(a.WritePaths, extra)
	d.pm = newPathMatcher(d.c.ws.Roots(), d.c.ws.RealRoots(), d.c.home)
}

// additionalDirectories are the settings' extra folders, resolved. The
// workspace knows them too once the session passes them on; reading them
// here keeps a settings change effective at once.
func (d *decision) additionalDirectories() []string {
	var out []string
	for _, dir := range d.st.Permissions.AdditionalDirectories {
		if abs, err := d.c.ws.Resolve(dir); err == nil {
			out = append(out, d.c.ws.FolderReal(abs))
		}
	}
	return out
}

func (d *decision) resolve(paths []string, extra []string) []resolvedPath {
	var out []resolvedPath
	for _, p := range paths {
		abs, err := d.c.ws.Resolve(p)
		if err != nil {
			continue
		}
		rp := resolvedPath{given: p, abs: abs, real: pathutil.RealPath(abs), isDir: isDir(abs)}
		rp.inside = d.c.ws.Inside(abs)
		for _, e := range extra {
			rp.inside = rp.inside || pathutil.Within(e, rp.real)
		}
		if !rp.inside && rp.real != rp.abs {
			rp.linkedOut = writtenWithin(abs, extra) || writtenWithin(abs, d.c.ws.Roots()) || writtenWithin(abs, d.c.ws.RealRoots())
		}
		out = append(out, rp)
	}
	return out
}

func (d *decision) decide() tools.PermissionDecision {
	v := d.rulesSay()
	if v.Verdict == tools.VerdictAsk && d.mode == tools.ModeDontAsk {
		narrow, _ := d.suggestions()
		return denyWith("%s needs permission (%s), and the permission mode is dontAsk, which denies instead of asking. %s",
			d.what(), v.Reason, howToAllow(narrow))
	}
	return v
}

// rulesSay applies the order of the package doc to the call.
func (d *decision) rulesSay() tools.PermissionDecision {
	perms := d.st.Permissions
	rules := d.c.rulesOf(d.st)
	if r, ok := rules.deny.firstMatch(&d.sub, d.pm); ok {
		return denyWith("%s was denied by the rule %s in the permission settings. Do not retry it; find another way or ask the user to change the rule.", d.what(), r)
	}
	if r, ok := rules.deny.firstBlind(&d.sub); ok {
		return denyWith("%s was refused: %s, so the deny rule %s cannot be checked against it. Write the command out literally: no variable or substitution as a command name, no eval or bash -c of a computed string.", d.what(), d.sub.blindness(), r)
	}
	if v, ok := d.blockedCommand(rules.blocked); ok {
		return v
	}
	for _, p := range d.sub.writes {
		if p.linkedOut {
			return denyWith("%s of %s is refused: the path leads through a symbolic link in the workspace to %s, outside it, and changes through such a link are refused in every permission mode. %s",
				d.name, p.given, p.real, outsideWriteAdvice(p.real, perms.AllowWritesOutsideWorkspace))
		}
	}
	var outsideWrites []string
	for _, p := range d.sub.writes {
		if !p.inside {
			outsideWrites = append(outsideWrites, p.where())
		}
	}
	if len(outsideWrites) > 0 && !perms.AllowWritesOutsideWorkspace {
		return denyWith("%s would write %s, outside the workspace (%s). Writes outside the workspace are refused in every permission mode. Write inside the workspace instead; if the user wants that folder included, they can add it to permissions.additionalDirectories.",
			d.name, strings.Join(outsideWrites, ", "), strings.Join(d.c.ws.Roots(), ", "))
	}
	if d.mode == tools.ModePlan {
		if d.writesOnlyPlanFile() {
			return allowBecause("plan mode allows writing the plan file")
		}
		if !readOnly(d.call.Tool.SideEffect()) {
			return denyWith("%s is not available in plan mode, which allows only read-only tools. Keep researching and write the plan (to %s, or pass it to ExitPlanMode); then call ExitPlanMode so the user can approve the plan and leave plan mode.", d.name, PlanFile)
		}
	}
	if files := append(d.protectedWrites(), d.protectedCommand()...); len(files) > 0 {
		if v, done := d.decideProtected(files); done {
			return v
		}
	}
	allowRules := rules.allow
	if session := d.c.SessionRules(); len(session) > 0 {
		allowRules = append(slices.Clone(allowRules), compileRules(session)...)
	}
	if r, ok := rules.ask.firstMatch(&d.sub, d.pm); ok && d.mode != tools.ModeBypassPermissions {
		return askBecause("the rule " + r + " asks for confirmation")
	}
	if r, ok := rules.ask.firstBlind(&d.sub); ok && d.mode != tools.ModeBypassPermissions {
		return askBecause(d.sub.blindness() + ", so the rule " + r + " cannot be checked against it")
	}
	if len(outsideWrites) > 0 {
		if allowRules.allows(&d.sub, d.pm) {
			return allowBecause("an allow rule names the path outside the workspace")
		}
		return askBecause("it writes outside the workspace")
	}
	if d.mode == tools.ModeBypassPermissions {
		return allowBecause("the permission mode is bypassPermissions")
	}
	if allowRules.allows(&d.sub, d.pm) {
		return allowBecause("an allow rule matches it")
	}
	for _, p := range d.sub.reads {
		if !p.inside && !d.savedOutput(p) {
			return askBecause("it reads " + p.where() + ", outside the workspace")
		}
	}
	if d.mode == tools.ModeAcceptEdits && d.call.Tool.SideEffect() == tools.SideEffectMutating && len(d.sub.writes) > 0 {
		return allowBecause("the permission mode acceptEdits allows edits inside the workspace")
	}
	if readOnly(d.call.Tool.SideEffect()) && d.risk() == tools.RiskLow {
		return allowBecause("it is a low-risk call that changes no files")
	}
	if d.st.Edit.ReviewInEditor && editFamily(d.name) && len(d.sub.writes) > 0 && d.host.CanApplyEdit() {
		// Every write is inside the workspace here: the editor's review of
		// the edit is the prompt.
		return tools.PermissionDecision{Verdict: tools.VerdictAllow, Reason: "the editor asks the user to review the edit (edit.reviewInEditor)", Review: true}
	}
	return askBecause("no rule allows it")
}

// blockedCommand refuses a command matching a bash.blockedCommands
// pattern: the whole command as written, or one of the simple commands
// bash would run in it, as their words read after quote removal (with and
// without wrappers such as timeout). A command the patterns cannot be
// checked against (see blind) is refused too.
func (d *decision) blockedCommand(blocked []*regexp.Regexp) (tools.PermissionDecision, bool) {
	sc := d.sub.command
	if sc == nil || len(blocked) == 0 {
		return tools.PermissionDecision{}, false
	}
	const advice = "Do the task another way, or ask the user to run it or to change the setting."
	if blind(sc) {
		return denyWith("%s was refused: %s, so the bash.blockedCommands setting cannot be checked against it. Write the command out literally. %s", d.what(), d.sub.blindness(), advice), true
	}
	texts := []string{d.call.Access.Command}
	for i := range sc.Parts {
		for f := range sc.Parts[i].Forms {
			texts = append(texts, strings.Join(f, " "))
		}
	}
	for _, re := range blocked {
		for _, t := range texts {
			if re.MatchString(t) {
				return denyWith("%s is blocked by the bash.blockedCommands setting (pattern %q). %s", d.what(), re.String(), advice), true
			}
		}
	}
	return tools.PermissionDecision{}, false
}

// outsideWriteAdvice says what to do instead of writing real, outside the
// workspace, through a link: use its own path, when writes outside may be
// asked about.
func outsideWriteAdvice(real string, allowed bool) string {
	if allowed {
		return "To change the file there, give its own path, " + real + ", so that the user is asked about it by name."
	}
	return "Writes outside the workspace are refused too: write inside the workspace instead; if the user wants that folder included, they can add it to permissions.additionalDirectories."
}

// readOnly reports side effects that change nothing outside toolhost's own
// session state.
func readOnly(s tools.SideEffect) bool {
	return s == tools.SideEffectNone || s == tools.SideEffectState || s == tools.SideEffectBlocking
}

// risk is the call's risk: as given, from the tool's RiskAssessor, or from
// its side effect.
func (d *decision) risk() tools.Risk {
	if d.call.Risk != "" {
		return d.call.Risk
	}
	if ra, ok := d.call.Tool.(tools.RiskAssessor); ok {
		if r := ra.Risk(d.call.Input); r != "" {
			return r
		}
	}
	return tools.DefaultRisk(d.call.Tool.SideEffect())
}

// writesOnlyPlanFile reports a call whose only writes are to the plan file.
func (d *decision) writesOnlyPlanFile() bool {
	if len(d.sub.writes) == 0 || d.sub.command != nil {
		return false
	}
	plan := filepath.Join(d.c.ws.Root(), filepath.FromSlash(PlanFile))
	for _, p := range d.sub.writes {
		if p.abs != plan {
			return false
		}
	}
	return true
}

// what names the call for messages: "Bash command `ls`", "Edit of a.go".
func (d *decision) what() string {
	switch {
	case d.sub.command != nil:
		return fmt.Sprintf("The %s command `%s`", d.name, truncate(d.sub.command.Whole, 200))
	case len(d.sub.writes) > 0:
		return fmt.Sprintf("%s of %s", d.name, d.sub.writes[0].given)
	case len(d.sub.reads) > 0:
		return fmt.Sprintf("%s of %s", d.name, d.sub.reads[0].given)
	case d.sub.domain != "":
		return fmt.Sprintf("%s of %s", d.name, d.sub.domain)
	}
	return "The tool " + d.name
}

func allowBecause(why string) tools.PermissionDecision {
	return tools.PermissionDecision{Verdict: tools.VerdictAllow, Reason: why}
}

func askBecause(why string) tools.PermissionDecision {
	return tools.PermissionDecision{Verdict: tools.VerdictAsk, Reason: why}
}

func denyWith(format string, args ...any) tools.PermissionDecision {
	return tools.PermissionDecision{Verdict: tools.VerdictDeny, Reason: fmt.Sprintf(format, args...)}
}

func deny(format string, args ...any) tools.PermissionOutcome {
	return tools.PermissionOutcome{Message: fmt.Sprintf(format, args...)}
}

// updatedInput turns a client's updatedInput into raw JSON; nil when absent
// or not encodable.
func updatedInput(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	if raw, ok := v.(json.RawMessage); ok {
		return raw
	}
	b, err := json.Marshal(v)
	if err != nil || string(b) == "null" {
		return nil
	}
	return b
}

// truncate shortens s to n runes for titles and messages.
func truncate(s string, n int) string {
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	return string(rs[:n]) + "…"
}
