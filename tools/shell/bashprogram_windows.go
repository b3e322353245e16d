package shell

import (
	"os"
	"os/exec"
)

// bashProgram is Git for Windows' bash.exe (findBash), looked up at each
// call: installing Git, or setting the variable, needs no restart.
func bashProgram() (string, error) {
	return findBash(bashLookup{
		getenv:   os.Getenv,
		lookPath: exec.LookPath,
		isFile: func(p string) bool {
			st, err := os.Stat(p)
			return err == nil && st.Mode().IsRegular()
		},
	})
}
