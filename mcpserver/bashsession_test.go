//go:build unix

package mcpserver

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// startBash starts `toolhost mcp` (bin) in dir and calls Bash with command;
// in the background, it returns once the call has answered that the task
// started. The caller waits for cmd.
func startBash(t *testing.T, bin, dir, command string, background bool) (*exec.Cmd, io.WriteCloser, io.Reader) {
	t.Helper()
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
	args, _ := json.Marshal(map[string]any{"command": command, "run_in_background": background})
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
	return cmd, stdin, stdout
}
