package permission

import (
	"regexp"
	"strings"

	"github.com/toolhost/toolhost/tools/permission/pwsh"
)

// readPowerShell reads a PowerShell command for the rules (package pwsh),
// run in the absolute folder dir ("" for the first root). PowerShell finds
// commands in any case, so the words are compared folded to lower case; a
// command found by another name (an alias, a path, .exe) is a second part
// under that name: every part must be covered for an allow, one matching
// part is enough for a deny or an ask.
func readPowerShell(cmd, dir string) shellCommand {
	sc := shellCommand{whole: strings.TrimSpace(collapseSpaces(cmd)), powerShell: true}
	words, err := pwsh.Words(cmd)
	if err != nil {
		sc.unparsed = err.Error()
		return sc
	}
	argv := make([]string, len(words))
	for i, w := range words {
		argv[i] = strings.ToLower(w)
	}
	for _, name := range []string{argv[0], pwsh.Name(argv[0])} {
		if name != argv[0] || len(sc.parts) == 0 {
			sc.parts = append(sc.parts, simpleCommand{argv: append([]string{name}, argv[1:]...), static: true, names: words[1:], dirs: []string{dir}})
		}
	}
	return sc
}

// foldPowerShellRule makes a PowerShell command rule compare in any case,
// as PowerShell finds commands.
func foldPowerShellRule(r *rule) {
	for i, w := range r.words {
		r.words[i] = strings.ToLower(w)
	}
	if r.cmd != nil {
		r.cmd = regexp.MustCompile("(?i)" + r.cmd.String())
	}
}
