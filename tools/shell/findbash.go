package shell

import (
	"errors"
	"fmt"
	"strings"
)

// BashPathVar names the environment variable that points Bash at a bash
// executable on Windows, ahead of every place it is looked for.
const BashPathVar = "TOOLHOST_BASH_PATH"

// bashLookup is what findBash may ask of the system (variables for tests,
// which run it on every system).
type bashLookup struct {
	getenv   func(string) string
	lookPath func(string) (string, error)
	isFile   func(string) bool
}

// findBash finds the bash of Git for Windows, as Claude Code does: the
// path in BashPathVar; the bash.exe beside the git.exe found on PATH (Git
// for Windows puts git.exe in cmd\ and bash.exe in bin\); the usual install
// folders; then a bash.exe on PATH unless it is Windows' own WSL launcher
// in System32, which runs the command in a Linux distribution, with other
// paths, or fails when none is installed. Paths are Windows paths; the
// work is string work so that it is tested everywhere.
func findBash(l bashLookup) (string, error) {
	if p := l.getenv(BashPathVar); p != "" {
		if !l.isFile(p) {
			return "", fmt.Errorf("%s is set to %s, which is not a file; point it at Git for Windows' bash.exe (e.g. C:\\Program Files\\Git\\bin\\bash.exe) or unset it", BashPathVar, p)
		}
		return p, nil
	}
	var candidates []string
	if git, err := l.lookPath("git.exe"); err == nil {
		dir := winDir(git) // ...\Git\cmd, ...\Git\bin or ...\Git\mingw64\bin
		for _, root := range []string{winDir(dir), winDir(winDir(dir))} {
			if root != "" {
				candidates = append(candidates, root+`\bin\bash.exe`)
			}
		}
	}
	for _, v := range []string{"ProgramFiles", "ProgramW6432", "ProgramFiles(x86)"} {
		if d := l.getenv(v); d != "" {
			candidates = append(candidates, d+`\Git\bin\bash.exe`)
		}
	}
	if d := l.getenv("LOCALAPPDATA"); d != "" {
		candidates = append(candidates, d+`\Programs\Git\bin\bash.exe`)
	}
	for _, c := range candidates {
		if l.isFile(c) {
			return c, nil
		}
	}
	if p, err := l.lookPath("bash.exe"); err == nil && !isWSLLauncher(p, l.getenv("SystemRoot")) {
		return p, nil
	}
	return "", errNoBash
}

// errNoBash explains what to do when no Git Bash is found.
var errNoBash = errors.New("no bash found: Bash runs Git for Windows' bash.exe, and none was found on PATH or in the usual install folders. " +
	"Ask the user to install Git for Windows (https://gitforwindows.org), or to set " + BashPathVar + " to the bash.exe to use")

// winDir is the folder of a Windows path ("" at the top).
func winDir(p string) string {
	p = strings.TrimRight(p, `\/`)
	i := strings.LastIndexAny(p, `\/`)
	if i <= 0 {
		return ""
	}
	return p[:i]
}

// isWSLLauncher reports whether p is System32's (or SysWOW64's) bash.exe.
func isWSLLauncher(p, systemRoot string) bool {
	if systemRoot == "" {
		systemRoot = `C:\Windows`
	}
	dir := strings.ToLower(winDir(p))
	root := strings.ToLower(strings.TrimRight(systemRoot, `\`))
	return dir == root+`\system32` || dir == root+`\syswow64` || dir == root+`\sysnative`
}
