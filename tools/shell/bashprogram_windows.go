package shell

// bashProgram is Git for Windows' bash.exe (findBash), looked up at each
// call: installing Git, or setting the variable, needs no restart.
func bashProgram() (string, error) {
	return findBash(systemLookup())
}
