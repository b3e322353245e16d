package permission

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/internal/pathutil"
	"github.com/toolhost/toolhost/internal/visible"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/permission/shellcmd"
)

// maxSuggestions caps the rules offered in one prompt.
const maxSuggestions = 5

// ask settles a call that needs the user's consent with a prompt through
// the host. reason says why it is asked.
func (d *decision) ask(ctx context.Context, reason string) (tools.PermissionOutcome, error) {
	req := d.request(ctx)
	suggestions, broader := req.Suggestions, req.BroaderSuggestions
	resp, err := d.host.RequestPermission(ctx, req)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return tools.PermissionOutcome{}, ctxErr
	}
	switch {
	case errors.Is(err, tools.ErrCannotAsk):
		return deny("%s needs permission (%s), and this client cannot show permission prompts, so it was not run. %s",
			d.what(), reason, howToAllow(suggestions)), nil
	case errors.Is(err, tools.ErrDismissed):
		return deny("The user dismissed the permission prompt, so %s did not run. Ask the user how to proceed.", lowerFirst(d.what())), nil
	case err != nil:
		d.c.log.Warn("permission prompt failed", "tool", d.name, "err", err)
		return deny("Permission to run %s could not be asked (%v), so it did not run. Tell the user; they can allow it with a rule. %s",
			d.name, err, howToAllow(suggestions)), nil
	}
	if resp.Consented() {
		if resp.Decision == tools.DecisionAllowAlways {
			d.c.remember(picked(resp.Rules, suggestions, broader), d.st.Permissions.SavesAlwaysAllow())
		}
		return tools.PermissionOutcome{Allow: true, UpdatedInput: updatedInput(resp.UpdatedInput)}, nil
	}
	// The user's own words reach the model as typed; a plain denial says
	// only that the user denied it, never words the user did not write.
	if said := strings.TrimSpace(resp.Message); said != "" {
		return deny("The user denied this and said: %s\n\n(%s did not run. Do not retry the same call; follow the user's words.)", said, d.what()), nil
	}
	return deny("The user denied permission: %s did not run. Do not retry the same call; ask the user what they want instead.", lowerFirst(d.what())), nil
}

// request is the prompt of the call: what it does, its preview, its risk
// and the rules an "Always allow" adds.
func (d *decision) request(ctx context.Context) tools.PermissionRequest {
	suggestions, broader := d.suggestions()
	title := d.title()
	if d.call.HookAsk {
		// The hook asks, not the rules: an "Always allow" would not
		// stop the hook asking, so no rule is offered.
		suggestions, broader = nil, nil
		title = "A hook asks you to confirm " + d.name
		if d.call.HookReason != "" {
			title += ": " + d.call.HookReason
		}
	}
	// What the user reads is shown with its invisible characters escaped
	// (internal/visible); the rules saved stay as they are.
	preview := d.preview(ctx)
	if preview != nil {
		shown := *preview
		shown.Text = visible.Text(shown.Text)
		preview = &shown
	}
	return tools.PermissionRequest{
		CallID:      d.call.CallID,
		ToolName:    d.name,
		Input:       d.call.Input,
		Title:       visible.Line(title),
		Risk:        d.risk(),
		Preview:     preview,
		Suggestions: suggestions,

		BroaderSuggestions: broader,
	}
}

// Prompt is the prompt Check shows for call when Decide says "ask",
// built by the same code, with nobody asked (toolhost/checkPermission);
// with call.HookAsk, the prompt of a hook's "ask".
func (c *Checker) Prompt(ctx context.Context, host tools.Host, call tools.PermissionCall) tools.PermissionRequest {
	return c.newDecision(host, call).request(ctx)
}

var _ tools.PermissionPrompter = (*Checker)(nil)

// howToAllow tells the model (and through it the user) how the call could
// be allowed without a prompt.
func howToAllow(suggestions []string) string {
	rule := "a matching rule"
	if len(suggestions) > 0 {
		quoted := make([]string, len(suggestions))
		for i, s := range suggestions {
			quoted[i] = fmt.Sprintf("%q", s)
		}
		rule = strings.Join(quoted, " and ")
	}
	// The mode is named by its setting, which every client has; a method
	// such as toolhost/setPermissionMode means nothing to an MCP client.
	return "To allow it, the user can add " + rule + ` to "permissions.allow" in .toolhost/settings.json (or .toolhost/settings.local.json), or set "permissions.defaultMode" there to acceptEdits (edits inside the workspace) or bypassPermissions (everything except writes outside the workspace), which applies from the next start; an editor can also switch the mode for the session. Tell the user what you need if you cannot go on without it.`
}

// remember adds rules to the session and, when save is set and a saver is
// configured, to the first root's local settings file.
func (c *Checker) remember(rules []string, save bool) {
	c.mu.Lock()
	for _, r := range rules {
		if !slices.Contains(c.sessionAllow, r) {
			c.sessionAllow = append(c.sessionAllow, r)
		}
	}
	c.mu.Unlock()
	if !save || c.saver == nil {
		return
	}
	for _, r := range rules {
		if err := c.saver.SaveLocalRule(c.ws.Root(), r); err != nil {
			c.log.Warn("could not save an always-allow rule; it lasts for this session", "rule", r, "err", err)
		}
	}
}

// title is the prompt's one-line question.
func (d *decision) title() string {
	switch {
	case d.sub.command != nil:
		return fmt.Sprintf("Run `%s`?", truncate(d.sub.command.Whole, 120))
	case len(d.sub.writes) > 0:
		return fmt.Sprintf("%s %s?", verb(d.name), d.describePaths(d.sub.writes))
	case len(d.sub.reads) > 0:
		return fmt.Sprintf("%s %s?", verb(d.name), d.describePaths(d.sub.reads))
	case d.sub.domain != "":
		return fmt.Sprintf("Let %s reach %s?", d.name, d.sub.domain)
	}
	return fmt.Sprintf("Run %s?", d.name)
}

func verb(tool string) string {
	if strings.EqualFold(tool, "NotebookEdit") {
		return "Edit notebook"
	}
	return tool
}

// describePaths lists paths for a title: relative inside the workspace,
// absolute and marked outside it.
func (d *decision) describePaths(ps []resolvedPath) string {
	var names []string
	outside := false
	for _, p := range ps {
		names = append(names, d.display(p))
		outside = outside || !p.inside
	}
	s := strings.Join(names, ", ")
	if outside {
		s += " (outside the workspace)"
	}
	return s
}

// display is a path relative to the root holding it, or absolute. A path
// leading outside the workspace through a link shows where it leads: the
// place the user is asked about.
func (d *decision) display(p resolvedPath) string {
	if !p.inside && p.real != p.abs {
		return d.relative(p.abs) + " → " + p.real
	}
	if p.inside {
		return d.relative(p.abs)
	}
	return p.abs
}

// relative is abs relative to the root it lies in as written, or abs.
func (d *decision) relative(abs string) string {
	for _, r := range d.c.ws.Roots() {
		if rel, err := filepath.Rel(r, abs); err == nil && pathutil.Within(r, abs) {
			return filepath.ToSlash(rel)
		}
	}
	return abs
}

// preview is the tool's own preview, or the command or host to show.
func (d *decision) preview(ctx context.Context) *tools.Preview {
	if p := tools.PreviewOf(ctx, d.call); p != nil {
		return p
	}
	switch {
	case d.sub.command != nil:
		return &tools.Preview{Kind: "command", Text: d.call.Access.Command}
	case d.sub.domain != "":
		return &tools.Preview{Kind: "url", Text: d.sub.domain}
	}
	return nil
}

// suggestions are the rules that would allow this call next time, as
// narrow as the call: each simple command exactly as given, a folder rule
// per path, a domain rule, or the tool's name. broader are wider rules the
// user may pick instead: each command's prefix ("Bash(npm run:*)").
func (d *decision) suggestions() (narrow, broader []string) {
	if d.protected {
		// No rule would allow a change to a protected file: suggest none.
		return nil, nil
	}
	add := func(out *[]string, r string) {
		if !slices.Contains(*out, r) && len(*out) < maxSuggestions {
			*out = append(*out, r)
		}
	}
	switch {
	case d.sub.command != nil:
		sc := d.sub.command
		if !judged(sc) {
			// Only a rule naming the whole command can allow it.
			add(&narrow, d.name+"("+sc.Whole+")")
			break
		}
		for _, part := range sc.Parts {
			if len(part.Argv) == 0 {
				continue
			}
			exact := shellcmd.Quote(part.Argv, part.Redirs...)
			if part.Appended {
				exact += ":*"
			}
			add(&narrow, d.name+"("+exact+")")
			if prefix := prefixPattern(part.Argv); strings.HasSuffix(prefix, ":*") {
				add(&broader, d.name+"("+prefix+")")
			}
		}
		if len(narrow) == 0 {
			add(&narrow, d.name+"("+sc.Whole+")")
		}
	case len(d.sub.writes) > 0:
		for _, p := range d.sub.writes {
			add(&narrow, "Edit("+d.pathPattern(p)+")")
		}
	case d.sub.domain != "":
		add(&narrow, d.name+"(domain:"+d.sub.domain+")")
	default:
		add(&narrow, d.name)
	}
	for _, p := range d.sub.reads {
		if !p.inside {
			add(&narrow, "Read("+d.pathPattern(p)+")")
		}
	}
	return narrow, broader
}

// picked are the rules an "Always allow" answer saves: the ones the user
// picked among those offered, else the narrow suggestions. A rule that was
// not offered is never saved.
func picked(chosen, narrow, broader []string) []string {
	var out []string
	for _, r := range chosen {
		if (slices.Contains(narrow, r) || slices.Contains(broader, r)) && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return narrow
	}
	return out
}

// plainWord is a command word that names a program or subcommand (not a
// flag, path, file name, assignment or quoted text).
var plainWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_@+:-]+$`) })

// prefixPattern is a rule pattern covering a simple command and its
// variants: its leading plain words (up to three) with ":*", e.g. "npm run
// test -- -u" → "npm run test:*". A command that starts with a path or
// quoted text gets an exact pattern.
func prefixPattern(words []string) string {
	n := 0
	for n < len(words) && n < 3 && plainWord().MatchString(words[n]) && !strings.HasPrefix(words[n], "-") {
		n++
	}
	if n == 0 {
		return shellcmd.Quote(words)
	}
	return strings.Join(words[:n], " ") + ":*"
}

// pathPattern is a rule pattern for the folder holding p: relative for
// paths inside a root ("src/**", or "./a.go" for a file at the root),
// absolute ("//etc/**") otherwise.
func (d *decision) pathPattern(p resolvedPath) string {
	if p.inside {
		for _, r := range d.c.ws.Roots() {
			if !pathutil.Within(r, p.abs) {
				continue
			}
			rel, _ := filepath.Rel(r, p.abs)
			dir := filepath.ToSlash(filepath.Dir(rel))
			if p.isDir {
				dir = filepath.ToSlash(rel)
			}
			switch {
			case rel == ".":
				return "/**"
			case dir == ".":
				return "./" + filepath.ToSlash(rel)
			}
			return dir + "/**"
		}
	}
	// Outside the workspace, the rule names where the path really leads:
	// a rule for the folder of a link would allow whatever it is made to
	// point at next.
	dir := filepath.Dir(p.real)
	if p.isDir {
		dir = p.real
	}
	return "/" + strings.TrimSuffix(rulePath(dir), "/") + "/**"
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
