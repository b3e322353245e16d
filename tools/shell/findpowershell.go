package shell

import "errors"

// PowerShellPathVar names the environment variable that points the
// PowerShell tool at a pwsh.exe or powershell.exe, ahead of every place it
// is looked for (as BashPathVar does for bash).
const PowerShellPathVar = "TOOLHOST_POWERSHELL_PATH"

// findPowerShell finds the PowerShell that runs the PowerShell tool's
// commands: the path in PowerShellPathVar; PowerShell 7 (pwsh.exe) on PATH
// or in its install folder; else Windows PowerShell 5.1 (powershell.exe)
// in System32 or on PATH. Paths are Windows paths; the work is string work
// so that it is tested everywhere.
func findPowerShell(l bashLookup) (string, error) {
	if p := l.getenv(PowerShellPathVar); p != "" {
		if !l.isFile(p) {
			return "", errors.New(PowerShellPathVar + " is set to " + p + ", which is not a file; point it at pwsh.exe or powershell.exe, or unset it")
		}
		return p, nil
	}
	if p, err := l.lookPath("pwsh.exe"); err == nil {
		return p, nil
	}
	var candidates []string
	for _, v := range []string{"ProgramFiles", "ProgramW6432"} {
		if d := l.getenv(v); d != "" {
			candidates = append(candidates, d+`\PowerShell\7\pwsh.exe`)
		}
	}
	root := l.getenv("SystemRoot")
	if root == "" {
		root = `C:\Windows`
	}
	candidates = append(candidates, root+`\System32\WindowsPowerShell\v1.0\powershell.exe`)
	for _, c := range candidates {
		if l.isFile(c) {
			return c, nil
		}
	}
	if p, err := l.lookPath("powershell.exe"); err == nil {
		return p, nil
	}
	return "", errNoPowerShell
}

// errNoPowerShell explains what to do when no PowerShell is found.
var errNoPowerShell = errors.New("no PowerShell found: neither pwsh.exe nor powershell.exe is on PATH or in its install folder. " +
	"Ask the user to install PowerShell 7 or Git for Windows, or to set " + PowerShellPathVar + " to the PowerShell to use")

// powerShellArgs are the arguments that run command in PowerShell: no
// profile (a user's profile must not change what a command does or slow
// every call), never a prompt (a command waiting for input would hang until
// its timeout).
func powerShellArgs(command string) []string {
	return []string{"-NoProfile", "-NonInteractive", "-Command", command}
}
