package permission

import (
	"regexp"
	"strings"

	"github.com/toolhost/toolhost/settings"
)

// families are the tools a rule naming the key also covers, as in Claude
// Code: Edit rules apply to every tool that edits files, Read rules to every
// tool that reads them.
var families = map[string][]string{
	"edit": {"edit", "write", "notebookedit", "multiedit"},
	"read": {"read", "glob", "grep", "ls", "tree"},
}

// editFamily reports whether rules of the named tool match write paths.
func editFamily(tool string) bool {
	for _, n := range families["edit"] {
		if strings.EqualFold(n, tool) {
			return true
		}
	}
	return false
}

// rule is a parsed permission rule ready for matching.
type rule struct {
	text string
	// tool is the lower-cased tool name as written (may end in "*").
	tool string
	spec string
	// cmd matches commands for a specifier with '*' wildcards.
	cmd *regexp.Regexp
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
		case cr.spec == "" || strings.HasPrefix(cr.spec, "domain:"):
		case settings.IsPathRuleTool(r.Tool):
			cr.path = compilePathPattern(cr.spec)
		case strings.Contains(cr.spec, "*") && !strings.HasSuffix(cr.spec, ":*"):
			cr.cmd = wildcardRegexp(cr.spec)
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
	n := strings.ToLower(name)
	if strings.HasPrefix(r.tool, "mcp__") {
		if prefix, ok := strings.CutSuffix(r.tool, "*"); ok {
			return strings.HasPrefix(n, prefix)
		}
		if n == r.tool {
			return true
		}
		return strings.Count(r.tool, "__") == 1 && strings.HasPrefix(n, r.tool+"__")
	}
	if n == r.tool {
		return true
	}
	for _, member := range families[r.tool] {
		if member == n {
			return true
		}
	}
	return false
}

// matchCommand reports whether a command rule's specifier matches one
// simple command.
func (r rule) matchCommand(cmd string) bool {
	switch {
	case r.cmd != nil:
		return r.cmd.MatchString(cmd)
	case strings.HasSuffix(r.spec, ":*"):
		prefix := strings.TrimSuffix(r.spec, ":*")
		return cmd == prefix || strings.HasPrefix(cmd, prefix+" ")
	default:
		return cmd == collapseSpaces(r.spec)
	}
}

// matchDomain reports whether a "domain:" specifier matches host; a
// leading "*." matches subdomains.
func (r rule) matchDomain(host string) bool {
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
	command *shellCommand
	domain  string
	reads   []resolvedPath
	writes  []resolvedPath
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
		return s.domain != "" && r.matchDomain(s.domain)
	case r.path != nil:
		for _, p := range r.paths(s) {
			if pm.match(r.path, p) {
				return true
			}
		}
		return false
	case s.command != nil:
		if r.matchCommand(s.command.whole) {
			return true
		}
		for _, part := range s.command.parts {
			if r.matchCommand(part) {
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
			if s.domain != "" && r.matchDomain(s.domain) {
				return true
			}
		case r.path != nil:
			ps := r.paths(s)
			all := len(ps) > 0
			for _, p := range ps {
				all = all && pm.match(r.path, p.allowedAs())
			}
			if all {
				return true
			}
		default:
			cmdRules = append(cmdRules, r)
		}
	}
	if s.command == nil || len(cmdRules) == 0 {
		return false
	}
	if s.command.complex {
		for _, r := range cmdRules {
			if r.cmd == nil && !strings.HasSuffix(r.spec, ":*") && r.matchCommand(s.command.whole) {
				return true
			}
		}
		return false
	}
	if len(s.command.parts) == 0 {
		return false
	}
	for _, part := range s.command.parts {
		matched := false
		for _, r := range cmdRules {
			if r.matchCommand(part) {
				matched = true
				break
			}
		}
		if !matched {
			return false
		}
	}
	return true
}
