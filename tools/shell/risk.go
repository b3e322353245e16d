package shell

import (
	"path"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/permission/protect"
	"github.com/toolhost/toolhost/tools/permission/shellcmd"
)

// commandRisk rates a Bash command for the permission prompt from the same
// parsed reading as the permission decision (shellcmd.Parse), so that what
// the user is told and what the rules see cannot disagree:
//
//   - high: bash cannot parse it; what it runs is computed or read from a
//     pipe (a download piped into a shell, eval "$x"); it deletes
//     recursively or by force, wipes, formats, escalates privileges or
//     rewrites history; or it may write a protected file (.git/config,
//     .toolhost/, .vscode/settings.json, ...).
//   - low: every command it runs only looks or waits (ls, cat, grep,
//     sleep, echo, a for loop of them), with no redirection into a file,
//     however long it takes.
//   - medium: anything else (a build, a test run, a write to an ordinary
//     file): it changes things, but in the ordinary way.
//
// dir is the absolute folder the command starts in ("" for the first
// root).
func commandRisk(command, dir string) tools.Risk {
	sc := shellcmd.Parse(command, dir)
	if sc.Unparsed != "" {
		return tools.RiskHigh
	}
	low := true
	for _, p := range sc.Parts {
		if p.Opaque || protect.GitConfigWrite(p.Argv) || dangerous(p.Argv) || writesProtected(p) {
			return tools.RiskHigh
		}
		if len(p.Argv) > 0 && !looksOnly(p.Argv) || slices.ContainsFunc(p.Targets, func(t string) bool { return t != "/dev/null" }) {
			low = false
		}
	}
	if low {
		return tools.RiskLow
	}
	return tools.RiskMedium
}

// lookingCommand reports whether the command k only reads, prints or
// waits, whatever its arguments (find and sed are judged by theirs, in
// looksOnly).
func lookingCommand(k string) bool {
	switch k {
	case "ls", "pwd", "echo", "printf", "date", "whoami", "which", "wc", "head", "tail",
		"file", "stat", "du", "df", "uname", "cat", "grep", "rg", "egrep", "fgrep", "less",
		"sleep", "true", "false", "test", "[", "seq", "sort", "uniq", "cut", "tr", "diff",
		"cmp", "basename", "dirname", "realpath", "readlink", "env", "printenv", "id",
		"hostname", "tree", "jq", "type", "cd", "nproc", "uptime", "ps":
		return true
	}
	return false
}

// lookingSubcommand reports whether k ("git status") is a read-only
// subcommand of a tool that also writes.
func lookingSubcommand(k string) bool {
	switch k {
	case "git status", "git log", "git diff", "git show", "git branch", "git blame",
		"git rev-parse", "go version", "go env", "go list", "node --version", "npm ls":
		return true
	}
	return false
}

// looksOnly reports whether argv only reads, prints or waits.
func looksOnly(argv []string) bool {
	name := path.Base(argv[0])
	switch {
	case name == "find":
		return !slices.ContainsFunc(argv[1:], func(a string) bool {
			return a == "-delete" || strings.HasPrefix(a, "-exec") || strings.HasPrefix(a, "-ok") || strings.HasPrefix(a, "-fprint")
		})
	case name == "sed":
		return !slices.ContainsFunc(argv[1:], func(a string) bool { return strings.HasPrefix(a, "-i") || a == "--in-place" })
	case lookingCommand(name):
		return true
	}
	return len(argv) > 1 && lookingSubcommand(name+" "+argv[1])
}

// dangerous reports commands whose harm is hard to undo, whatever the
// files they name.
func dangerous(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	name, args := path.Base(argv[0]), argv[1:]
	has := func(flags ...string) bool {
		return slices.ContainsFunc(args, func(a string) bool {
			for _, f := range flags {
				if a == f || len(f) == 2 && strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a[1:], f[1:]) {
					return true
				}
			}
			return false
		})
	}
	switch name {
	case "sudo", "su", "doas", "dd", "mkfs", "shred", "wipefs", "fdisk", "parted", "shutdown", "reboot":
		return true
	case "rm":
		return has("-r", "-R", "-f", "--recursive", "--force")
	case "chmod", "chown", "chgrp":
		return has("-R", "--recursive")
	case "git":
		if len(args) == 0 {
			return false
		}
		switch args[0] {
		case "push":
			return has("-f", "--force", "--force-with-lease", "--mirror", "--delete")
		case "reset":
			return has("--hard")
		case "clean":
			return has("-f", "--force")
		case "checkout", "restore":
			return slices.Contains(args, ".") || has("-f", "--force")
		}
	}
	return strings.HasPrefix(name, "mkfs.")
}

// writesProtected reports whether p may write a protected file: a
// redirection into one, or a protected file named to a command that does
// not only look.
func writesProtected(p shellcmd.Simple) bool {
	for _, t := range p.Targets {
		if protect.Name(t) {
			return true
		}
	}
	if len(p.Argv) == 0 || looksOnly(p.Argv) {
		return false
	}
	return slices.ContainsFunc(p.Names, protect.Name)
}
