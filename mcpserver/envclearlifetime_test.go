//go:build linux

package mcpserver

import (
	"io"
	"os/exec"
	"syscall"
	"testing"

	"github.com/toolhost/toolhost/internal/testproc"
)

// Processes a Bash command started that cleared their environment (env -i)
// and left its process group end with the server, however it ends: the end
// of its input, SIGTERM, or kill -9; during a call or as a background task.
// (At the end of its input the server first waits a while for the calls in
// flight, so that case runs with a background task only.)
func TestEnvClearedProcessesEndWithTheServer(t *testing.T) {
	bin := toolhostBinary(t)
	ends := []struct {
		name string
		end  func(cmd *exec.Cmd, stdin io.Closer) error
	}{
		{"end of input", func(_ *exec.Cmd, stdin io.Closer) error { return stdin.Close() }},
		{"SIGTERM", func(cmd *exec.Cmd, _ io.Closer) error { return cmd.Process.Signal(syscall.SIGTERM) }},
		{"SIGKILL", func(cmd *exec.Cmd, _ io.Closer) error { return cmd.Process.Signal(syscall.SIGKILL) }},
	}
	for _, background := range []bool{false, true} {
		for _, e := range ends {
			if e.name == "end of input" && !background {
				continue
			}
			name := e.name + map[bool]string{false: ", during a call", true: ", a background task"}[background]
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				p := startBash(t, bin, dir, testproc.EnvClearingScript(dir)+"\nsleep 1000", background)
				go io.Copy(io.Discard, p.stdout)
				pids := testproc.EnvClearedPIDs(t, dir)
				if err := e.end(p.cmd, p.stdin); err != nil {
					t.Fatal(err)
				}
				p.wait(t)
				wantAllGone(t, name, pids)
			})
		}
	}
}
