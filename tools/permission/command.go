package permission

import (
	"regexp"
	"strings"
)

// shellCommand is a Bash command as permission rules see it.
type shellCommand struct {
	// whole is the command with unquoted whitespace collapsed.
	whole string
	// parts are its simple commands (split at &&, ||, ;, |, |&, &, newlines,
	// and parentheses), wrappers such as timeout and nohup removed, plus the
	// commands inside substitutions.
	parts []string
	// complex is set when the command substitutes other commands ($(...),
	// backticks, <(...)), opens a subshell, or cannot be parsed (an
	// unterminated quote). Its parts cannot be trusted to be all it runs, so
	// only a rule naming the whole command allows it.
	complex bool
}

// parseCommand splits a shell command. It is deliberately conservative:
// anything it does not understand makes the command complex, which costs a
// prompt, never a wrong allow.
func parseCommand(cmd string) shellCommand {
	var p cmdParser
	p.run([]rune(cmd))
	sc := shellCommand{whole: strings.TrimSpace(collapseSpaces(cmd)), complex: p.complex}
	for _, part := range p.parts {
		part = stripWrappers(part)
		if part != "" {
			sc.parts = append(sc.parts, part)
		}
	}
	return sc
}

// cmdParser walks a command outside and inside quotes.
type cmdParser struct {
	parts   []string
	cur     strings.Builder
	complex bool
}

func (p *cmdParser) flush() {
	if s := strings.TrimSpace(p.cur.String()); s != "" {
		p.parts = append(p.parts, s)
	}
	p.cur.Reset()
}

func (p *cmdParser) run(rs []rune) {
	inSingle, inDouble := false, false
	space := false
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		next := rune(0)
		if i+1 < len(rs) {
			next = rs[i+1]
		}
		switch {
		case inSingle:
			p.cur.WriteRune(r)
			if r == '\'' {
				inSingle = false
			}
			continue
		case r == '\\' && next != 0:
			p.cur.WriteRune(r)
			p.cur.WriteRune(next)
			i++
			space = false
			continue
		case r == '$' && next == '(', (r == '<' || r == '>') && next == '(' && !inDouble:
			end := closingParen(rs, i+1)
			if end < 0 {
				p.nested(rs[i+2:])
				p.cur.WriteString(string(rs[i:]))
				i = len(rs)
				continue
			}
			p.nested(rs[i+2 : end])
			p.cur.WriteString(string(rs[i : end+1]))
			i = end
			space = false
			continue
		case r == '`':
			end := i + 1
			for end < len(rs) && rs[end] != '`' {
				if rs[end] == '\\' {
					end++
				}
				end++
			}
			p.nested(rs[i+1 : min(end, len(rs))])
			p.cur.WriteString(string(rs[i:min(end+1, len(rs))]))
			i = end
			space = false
			continue
		case inDouble:
			p.cur.WriteRune(r)
			if r == '"' {
				inDouble = false
			}
			continue
		case r == '\'':
			inSingle = true
		case r == '"':
			inDouble = true
		}
		if inSingle || inDouble {
			p.cur.WriteRune(r)
			space = false
			continue
		}
		switch r {
		case ';', '\n':
			p.flush()
		case '(', ')':
			p.complex = true
			p.flush()
		case '|':
			if next == '|' || next == '&' {
				i++
			}
			p.flush()
		case '&':
			prev := rune(0)
			if i > 0 {
				prev = rs[i-1]
			}
			switch {
			case prev == '>' || prev == '<' || next == '>':
				// a redirection: >&2, 2>&1, &>file
				p.cur.WriteRune(r)
			case next == '&':
				i++
				p.flush()
			default:
				p.flush()
			}
		case ' ', '\t', '\r':
			if !space {
				p.cur.WriteRune(' ')
			}
			space = true
			continue
		default:
			p.cur.WriteRune(r)
		}
		space = false
	}
	if inSingle || inDouble {
		p.complex = true
	}
	p.flush()
}

// nested records the commands inside a substitution (for deny and ask
// rules) and marks the command complex.
func (p *cmdParser) nested(rs []rune) {
	p.complex = true
	var inner cmdParser
	inner.run(rs)
	p.parts = append(p.parts, inner.parts...)
}

// closingParen returns the index of the ')' matching the '(' at open, or
// -1 when there is none.
func closingParen(rs []rune, open int) int {
	depth := 0
	inSingle, inDouble := false, false
	for i := open; i < len(rs); i++ {
		switch r := rs[i]; {
		case inSingle:
			inSingle = r != '\''
		case r == '\\':
			i++
		case inDouble:
			inDouble = r != '"'
		case r == '\'':
			inSingle = true
		case r == '"':
			inDouble = true
		case r == '(':
			depth++
		case r == ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// collapseSpaces turns runs of spaces and tabs into one space (quoted text
// included: it only serves exact comparisons with rules).
func collapseSpaces(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' }), " ")
}

// durationWord is timeout's duration argument.
var durationWord = regexp.MustCompile(`^[0-9.]+[smhd]?$`)

// stripWrappers removes leading commands that only run another command
// (timeout, time, nice, nohup), so Bash(npm test:*) also covers
// "timeout 60 npm test".
func stripWrappers(part string) string {
	words := strings.Fields(part)
	for len(words) > 0 {
		switch words[0] {
		case "nohup", "time":
			words = words[1:]
		case "nice":
			words = words[1:]
			if len(words) > 1 && words[0] == "-n" {
				words = words[2:]
			} else if len(words) > 0 && strings.HasPrefix(words[0], "-") {
				words = words[1:]
			}
		case "timeout":
			rest := words[1:]
			for len(rest) > 0 && strings.HasPrefix(rest[0], "-") {
				if (rest[0] == "-s" || rest[0] == "-k") && len(rest) > 1 {
					rest = rest[1:]
				}
				rest = rest[1:]
			}
			if len(rest) == 0 || !durationWord.MatchString(rest[0]) {
				return strings.Join(words, " ")
			}
			words = rest[1:]
		default:
			return strings.Join(words, " ")
		}
	}
	return ""
}
