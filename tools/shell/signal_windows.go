package shell

import "os"

// signalName: Windows processes end with an exit code, never a signal.
func signalName(*os.ProcessState) string { return "" }
