package permission

import (
	"regexp"
	"strings"

	"github.com/toolhost/toolhost/tools/permission/pwsh"
	"github.com/toolhost/toolhost/tools/permission/shellcmd"
)

// readPowerShell reads a PowerShell command for the rules (package pwsh),
// run in the absolute folder dir ("" for the first root). PowerShell finds
// commands in any case, so the words are compared folded to lower case; a
// command found by another name (an alias, a path, .exe) is a second part
// under that name: every part must be covered for an allow, one matching
// part is enough for a deny or an ask.
func readPowerShell(cmd, dir string) shellcmd.Command {
	sc := shellcmd.Command{Whole: strings.TrimSpace(shellcmd.CollapseSpaces(cmd))}
	words, err := pwsh.Words(cmd)
	if err != nil {
		sc.Unparsed = err.Error()
		return sc
	}
	argv := make([]string, len(words))
	for i, w := range words {
		argv[i] = strings.ToLower(w)
	}
	for _, name := range []string{argv[0], pwsh.Name(argv[0])} {
		if name != argv[0] || len(sc.Parts) == 0 {
			sc.Parts = append(sc.Parts, shellcmd.Simple{Argv: append([]string{name}, argv[1:]...), Static: true, Names: words[1:], Dirs: []string{dir}})
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
