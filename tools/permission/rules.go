package permission

import (
	"regexp"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools/permission/shellcmd"
)

// The tools a rule naming the first also covers, as in Claude Code: Edit
// rules apply to every tool that edits files, Read rules to every tool that
// reads them.
var (
	editTools = []string{"edit", "write", "notebookedit", "multiedit"}
	readTools = []string{"read", "glob", "grep", "ls", "tree"}
)

// family is the tools a rule naming tool (lower-cased) covers, itself
// among them; nil for a tool without a family.
func family(tool string) []string {
	switch tool {
	case "edit":
		return editTools
	case "read":
		return readTools
	}
	return nil
}

// editFamily reports whether rules of the named tool match write paths.
func editFamily(tool string) bool {
	return slices.ContainsFunc(editTools, func(n string) bool { return strings.EqualFold(n, tool) })
}

// rule is a parsed permission rule ready for matching.
type rule struct {
	text string
	// tool is the lower-cased tool name as written (may end in "*").
	tool string
	spec string
	// cmd matches commands for a specifier with '*' wildcards.
	cmd *regexp.Regexp
	// words are a command specifier's words as bash reads them: the
	// command itself for an exact rule, its first words for a prefix rule
	// ("npm run test:*").
	words  []string
	prefix bool
	// path is the compiled specifier of a Read/Edit-style rule.
	path *pathPattern
}

// compileRules parses rules, skipping the ones with bad syntax (the
// settings store has reported them).
func compileRules(texts []string) ruleList {
	out := make(ruleList, 0, len(texts))
	for _, t := range texts {
		r, err := settings.ParseRule(t)
		if err != nil {
			continue
		}
		cr := rule{text: r.String(), tool: strings.ToLower(r.Tool), spec: r.Specifier}
		switch {
		case cr.spec == "*":
			// Bash(*) is every command, as bare Bash is.
			cr.spec = ""
		case cr.spec == "" || strings.HasPrefix(cr.spec, "domain:"):
		case settings.IsPathRuleTool(r.Tool):
			cr.path = compilePathPattern(cr.spec)
		case strings.HasSuffix(cr.spec, ":*"):
			cr.prefix = true
			cr.words = shellcmd.Words(strings.TrimSuffix(cr.spec, ":*"))
		case strings.Contains(cr.spec, "*"):
			cr.cmd = wildcardRegexp(cr.spec)
		default:
			cr.words = shellcmd.Words(cr.spec)
		}
		if cr.tool == "powershell" {
			foldPowerShellRule(&cr)
		}
		out = append(out, cr)
	}
	return out
}

// wildcardRegexp turns a command pattern whose '*' matches any text into an
// anchored regexp. A single trailing " *" is optional, so "ls *" matches
// "ls" as well as "ls -la" (but not "lsof").
func wildcardRegexp(spec string) *regexp.Regexp {
	pieces := strings.Split(spec, "*")
	for i, p := range pieces {
		pieces[i] = regexp.QuoteMeta(p)
	}
	expr := strings.Join(pieces, ".*")
	if strings.Count(spec, "*") == 1 && strings.HasSuffix(spec, " *") {
		expr = regexp.QuoteMeta(strings.TrimSuffix(spec, " *")) + "( .*)?"
	}
	return regexp.MustCompile(`(?s)^` + expr + `$`)
}

// matchesTool reports whether the rule names the tool: exactly, through a
// family (Edit covers Write), or for MCP as the whole server
// ("mcp__github", "mcp__github__*").
func (r rule) matchesTool(name string) bool {
	if strings.HasPrefix(r.tool, "mcp__") {
		n := strings.ToLower(name)
		if prefix, ok := strings.CutSuffix(r.tool, "*"); ok {
			return strings.HasPrefix(n, prefix)
		}
		return n == r.tool || strings.Count(r.tool, "__") == 1 && strings.HasPrefix(n, r.tool+"__")
	}
	// EqualFold, not ToLower: this runs for every rule of every call.
	return strings.EqualFold(name, r.tool) || slices.ContainsFunc(family(r.tool), func(m string) bool { return strings.EqualFold(m, name) })
}

// matchWords reports whether a command rule's specifier matches the words
// of one simple command: word by word for exact and prefix rules (so
// "npm run test:*" matches "npm run test -u", not "npm run testx"), on the
// words joined by spaces for wildcard rules. An exact rule names the
// command's redirections too (see shellcmd.Simple.Redirs).
func (r rule) matchWords(argv []string, redirs ...string) bool {
	switch {
	case r.cmd != nil:
		return r.cmd.MatchString(strings.Join(argv, " "))
	case r.prefix:
		return len(r.words) > 0 && len(argv) >= len(r.words) && slices.Equal(argv[:len(r.words)], r.words)
	default:
		return len(r.words) == len(argv)+len(redirs) && slices.Equal(argv, r.words[:len(argv)]) && slices.Equal(redirs, r.words[len(argv):])
	}
}

// matchWhole reports a rule naming the whole command as written (runs of
// spaces count as one).
func (r rule) matchWhole(sc *shellcmd.Command) bool {
	return r.cmd == nil && !r.prefix && shellcmd.CollapseSpaces(r.spec) == sc.Whole
}

// isCommandRule reports a rule about some commands only (not a bare one).
func (r rule) isCommandRule() bool {
	return r.spec != "" && r.path == nil && !strings.HasPrefix(r.spec, "domain:")
}

// matchPart reports whether a deny or ask rule matches one simple command
// in any of the forms it runs in (see shellcmd.Simple.Forms); an exact rule names its
// redirections too.
func (r rule) matchPart(p *shellcmd.Simple) bool {
	for f := range p.Forms {
		if r.matchWords(f, p.Redirs...) || r.matchWords(f) {
			return true
		}
	}
	return false
}

// matchDomain reports whether a "domain:" specifier matches host (none
// when empty); a leading "*." matches subdomains.
func (r rule) matchDomain(host string) bool {
	if host == "" {
		return false
	}
	want := strings.ToLower(strings.TrimPrefix(r.spec, "domain:"))
	host = strings.ToLower(host)
	if h, _, ok := strings.Cut(host, ":"); ok {
		host = h
	}
	if rest, ok := strings.CutPrefix(want, "*."); ok {
		return strings.HasSuffix(host, "."+rest)
	}
	return host == want
}

// subject is what rules are matched against for one call.
type subject struct {
	tool    string
	command *shellcmd.Command
	// powerShell: command was read by package pwsh, which says itself why
	// it could not read one.
	powerShell bool
	domain     string
	reads      []resolvedPath
	writes     []resolvedPath
}

// matchAny reports whether the rule matches some aspect of the call: the
// test for deny and ask rules, where touching one matching path or running
// one matching part is enough.
func (r rule) matchAny(s *subject, pm *pathMatcher) bool {
	if !r.matchesTool(s.tool) {
		return false
	}
	switch {
	case r.spec == "":
		return true
	case strings.HasPrefix(r.spec, "domain:"):
		return r.matchDomain(s.domain)
	case r.path != nil:
		return slices.ContainsFunc(r.paths(s), func(p resolvedPath) bool { return pm.match(r.path, p) })
	case s.command != nil:
		if r.matchWhole(s.command) || r.cmd != nil && r.cmd.MatchString(s.command.Whole) {
			return true
		}
		for i := range s.command.Parts {
			if r.matchPart(&s.command.Parts[i]) {
				return true
			}
		}
	}
	return false
}

// paths are the call's paths a path rule looks at: write paths for Edit
// rules, read paths for Read rules.
func (r rule) paths(s *subject) []resolvedPath {
	if editFamily(r.tool) {
		return s.writes
	}
	return s.reads
}

// ruleList is one of the allow, ask or deny lists.
type ruleList []rule

// firstMatch returns the first rule that matches any aspect of the call.
func (l ruleList) firstMatch(s *subject, pm *pathMatcher) (string, bool) {
	for _, r := range l {
		if r.matchAny(s, pm) {
			return r.text, true
		}
	}
	return "", false
}

// allows reports whether the rules together allow the whole call: every
// path the rule kind looks at matches, every part of a command is matched
// by some rule, and a complex command is named whole by a rule without
// wildcards.
func (l ruleList) allows(s *subject, pm *pathMatcher) bool {
	var cmdRules []rule
	for _, r := range l {
		if !r.matchesTool(s.tool) {
			continue
		}
		switch {
		case r.spec == "":
			return true
		case strings.HasPrefix(r.spec, "domain:"):
			if r.matchDomain(s.domain) {
				return true
			}
		case r.path != nil:
			ps := r.paths(s)
			if len(ps) > 0 && !slices.ContainsFunc(ps, func(p resolvedPath) bool { return !pm.match(r.path, p.allowedAs()) }) {
				return true
			}
		default:
			cmdRules = append(cmdRules, r)
		}
	}
	if s.command == nil || len(cmdRules) == 0 {
		return false
	}
	return covers(cmdRules, s.command)
}

// covers reports whether command rules allow a whole command: a rule
// naming it exactly as written, or, when every part is judged (see
// judged), for each simple command bash would run a rule matching its
// words. A command that runs nothing (only assignments) is no command a
// rule names.
func covers(rules []rule, sc *shellcmd.Command) bool {
	for _, r := range rules {
		if r.matchWhole(sc) {
			return true
		}
	}
	if !judged(sc) {
		return false
	}
	ran := false
	for i := range sc.Parts {
		p := &sc.Parts[i]
		if len(p.Argv) == 0 {
			continue
		}
		// xargs appends words: an exact rule cannot cover them.
		if !slices.ContainsFunc(rules, func(r rule) bool {
			return r.matchWords(p.Argv, p.Redirs...) && (!p.Appended || r.prefix || r.cmd != nil)
		}) {
			return false
		}
		ran = true
	}
	return ran
}

// judged reports a command whose parts rules can be matched against: it
// parses, and no part has a computed word, a glob as its name, a risky
// assignment (PATH=...), or a redirection without a command.
func judged(sc *shellcmd.Command) bool {
	for i := range sc.Parts {
		p := &sc.Parts[i]
		if !p.Static || p.Opaque || len(p.Argv) == 0 && len(p.Targets) > 0 {
			return false
		}
	}
	return sc.Unparsed == ""
}

// blind reports a command that rules cannot see all of: it does not
// parse, or one of its commands is computed at run time.
func blind(sc *shellcmd.Command) bool {
	if sc.Unparsed != "" {
		return true
	}
	for i := range sc.Parts {
		if sc.Parts[i].Opaque {
			return true
		}
	}
	return false
}

// blindness says why a blind command cannot be seen into.
func (s *subject) blindness() string {
	if s.command.Unparsed != "" && s.powerShell {
		return s.command.Unparsed
	}
	if s.command.Unparsed != "" {
		return "bash cannot parse it (" + s.command.Unparsed + ")"
	}
	return "it runs a command computed at run time (a variable or substitution as the command name, eval or a shell given a computed string or its input)"
}

// firstBlind returns the first command rule of the tool's that a blind
// command cannot be checked against.
func (l ruleList) firstBlind(s *subject) (string, bool) {
	if s.command == nil || !blind(s.command) {
		return "", false
	}
	for _, r := range l {
		if r.matchesTool(s.tool) && r.isCommandRule() {
			return r.text, true
		}
	}
	return "", false
}
