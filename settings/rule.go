package settings

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Rule is one permission rule in Claude Code's syntax: a tool name alone
// ("Bash", "mcp__github"), or a tool name with a specifier in parentheses
// ("Bash(npm run test:*)", "Edit(src/**)", "WebFetch(domain:example.com)").
// ParseRule checks the syntax; tools/permission gives rules their meaning.
type Rule struct {
	// Tool is the tool name as written (may end in "*" for MCP tools).
	Tool string
	// Specifier is the text inside the parentheses; empty when there are none
	// or when it was "*" (which means the same as no specifier).
	Specifier string
}

// String writes the rule back in its canonical form.
func (r Rule) String() string {
	if r.Specifier == "" {
		return r.Tool
	}
	return r.Tool + "(" + r.Specifier + ")"
}

// pathRuleTool reports whether the specifier of the tool k (lower-cased) is
// a gitignore-style path pattern rather than a command.
func pathRuleTool(k string) bool {
	switch k {
	case "read", "edit", "write", "notebookedit", "multiedit", "glob", "grep", "ls", "tree":
		return true
	}
	return false
}

// IsPathRuleTool reports whether rules for the tool name take a path
// pattern (Read, Edit, Write, NotebookEdit, Glob, Grep, LS, Tree).
func IsPathRuleTool(name string) bool {
	return pathRuleTool(strings.ToLower(name))
}

// toolNamePattern is a tool name: letters, digits, '_' and '-' (MCP names
// carry the server's name), optionally ending in '*' for MCP wildcards.
var toolNamePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.\-]*\*?$`) })

// ParseRule checks a rule's syntax and splits it into tool and specifier.
// The errors say what is wrong in terms a settings author can act on.
func ParseRule(s string) (Rule, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Rule{}, errors.New("the rule is empty")
	}
	name, spec, hasSpec := s, "", false
	if i := strings.IndexByte(s, '('); i >= 0 {
		if !strings.HasSuffix(s, ")") {
			return Rule{}, fmt.Errorf("rule %q opens a parenthesis it does not close: write Tool(specifier)", s)
		}
		name, spec, hasSpec = s[:i], strings.TrimSpace(s[i+1:len(s)-1]), true
	} else if strings.ContainsRune(s, ')') {
		return Rule{}, fmt.Errorf("rule %q closes a parenthesis it never opened", s)
	}
	name = strings.TrimSpace(name)
	if !toolNamePattern().MatchString(name) {
		return Rule{}, fmt.Errorf("rule %q does not start with a tool name such as Bash, Edit or mcp__server__tool", s)
	}
	if strings.HasSuffix(name, "*") && !strings.HasPrefix(name, "mcp__") {
		return Rule{}, fmt.Errorf("rule %q: a '*' in the tool name is only allowed for MCP tools (mcp__server__*)", s)
	}
	if hasSpec && spec == "" {
		return Rule{}, fmt.Errorf("rule %q has empty parentheses: write %s alone to match every call, or put a pattern inside", s, name)
	}
	if spec == "*" {
		spec = ""
	}
	r := Rule{Tool: name, Specifier: spec}
	if spec == "" {
		return r, nil
	}
	if strings.HasPrefix(name, "mcp__") {
		return Rule{}, fmt.Errorf("rule %q: MCP rules take no parentheses; name the tool (mcp__server__tool) or the server (mcp__server)", s)
	}
	switch {
	case strings.EqualFold(name, "WebFetch"), strings.EqualFold(name, "HTTPRequest"):
		domain, ok := strings.CutPrefix(spec, "domain:")
		if !ok {
			return Rule{}, fmt.Errorf("rule %q: %s rules take a domain, e.g. %s(domain:example.com)", s, name, name)
		}
		if domain == "" || strings.ContainsAny(domain, "/ :") {
			return Rule{}, fmt.Errorf("rule %q: %q is not a host name", s, domain)
		}
	case IsPathRuleTool(name):
		if err := checkPathPattern(spec); err != nil {
			return Rule{}, fmt.Errorf("rule %q: %v", s, err)
		}
	default:
		if i := strings.Index(spec, ":*"); i >= 0 && i != len(spec)-2 {
			return Rule{}, fmt.Errorf("rule %q: ':*' is only allowed at the end of the pattern", s)
		}
	}
	return r, nil
}

// checkPathPattern reports a path pattern that can never match: one whose
// segments are not valid glob patterns.
func checkPathPattern(p string) error {
	for _, seg := range strings.Split(p, "/") {
		if seg == "**" || seg == "" {
			continue
		}
		if _, err := filepath.Match(seg, ""); err != nil {
			return fmt.Errorf("the path segment %q is not a valid pattern (%v)", seg, err)
		}
	}
	return nil
}
