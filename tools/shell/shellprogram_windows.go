package shell

import (
	"os"
	"os/exec"
)

// systemLookup is bashLookup on this system.
func systemLookup() bashLookup {
	return bashLookup{
		getenv:   os.Getenv,
		lookPath: exec.LookPath,
		isFile: func(p string) bool {
			st, err := os.Stat(p)
			return err == nil && st.Mode().IsRegular()
		},
	}
}

// powerShellProgram is the PowerShell that runs commands (findPowerShell),
// looked up at each call.
func powerShellProgram() (string, error) { return findPowerShell(systemLookup()) }

// OfferPowerShell reports whether the PowerShell tool is offered instead
// of Bash: on Windows, when no Git Bash is found as toolhost starts.
func OfferPowerShell() bool {
	_, err := bashProgram()
	return err != nil
}
