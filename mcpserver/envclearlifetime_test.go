//go:build linux

package mcpserver

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
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
				cmd := exec.Command(bin, "mcp")
				cmd.Dir, cmd.Env = dir, isolatedEnv(t)
				stdin, err := cmd.StdinPipe()
				if err != nil {
					t.Fatal(err)
				}
				stdout, err := cmd.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				defer cmd.Wait()
				args, _ := json.Marshal(map[string]any{"command": testproc.EnvClearingScript(dir) + "\nsleep 1000", "run_in_background": background})
				fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
				fmt.Fprintln(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
				fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"Bash","arguments":%s}}`+"\n", args)
				if background {
					sc := bufio.NewScanner(stdout)
					for sc.Scan() {
						if strings.Contains(sc.Text(), `"id":2`) {
							if !strings.Contains(sc.Text(), "background") {
								t.Fatalf("the Bash call did not start a background task: %s", sc.Text())
							}
							break
						}
					}
				}
				go io.Copy(io.Discard, stdout)
				pids := testproc.EnvClearedPIDs(t, dir)
				if err := e.end(cmd, stdin); err != nil {
					t.Fatal(err)
				}
				wantAllGone(t, name, pids)
			})
		}
	}
}
