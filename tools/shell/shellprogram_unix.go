//go:build unix

package shell

import "errors"

// powerShellProgram: the PowerShell tool is Windows'; Bash runs commands
// elsewhere.
func powerShellProgram() (string, error) {
	return "", errors.New("the PowerShell tool runs on Windows only; use Bash")
}

// OfferPowerShell is false: Bash is always offered here.
func OfferPowerShell() bool { return false }
