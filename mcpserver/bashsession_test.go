//go:build unix

package mcpserver

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mcpProcess is a `toolhost mcp` child of a test, its stderr kept in a file.
type mcpProcess struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.Reader
	stderr string
}

// endTimeout bounds the wait for a server told to end. The server ends
// itself 5 s after a signal whatever it is doing; a server still there
// well after that is stuck, and its goroutines are what the test reports.
const endTimeout = 30 * time.Second

// wait waits for the server to end. When it does not, its goroutines are
// dumped (SIGQUIT) and the test fails with them.
func (p *mcpProcess) wait(t *testing.T) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	timer := time.NewTimer(endTimeout)
	defer timer.Stop()
	select {
	case <-done:
		return
	case <-timer.C:
	}
	_ = p.cmd.Process.Signal(syscall.SIGQUIT)
	<-done
	dump, _ := os.ReadFile(p.stderr)
	t.Fatalf("the server did not end within %s; its stderr and goroutines:\n%s", endTimeout, dump)
}

// startBash starts `toolhost mcp` (bin) in dir and calls Bash with command;
// in the background, it returns once the call has answered that the task
// started. The caller waits for the process (mcpProcess.wait).
func startBash(t *testing.T, bin, dir, command string, background bool) *mcpProcess {
	t.Helper()
	p := &mcpProcess{cmd: exec.Command(bin, "mcp", "-v"), stderr: filepath.Join(t.TempDir(), "stderr")}
	cmd := p.cmd
	cmd.Dir, cmd.Env = dir, append(isolatedEnv(t), "GOTRACEBACK=all")
	stderr, err := os.Create(p.stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer stderr.Close()
	cmd.Stderr = stderr
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if p.stdout, err = cmd.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]any{"command": command, "run_in_background": background})
	fmt.Fprintln(p.stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	fmt.Fprintln(p.stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	fmt.Fprintf(p.stdin, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"Bash","arguments":%s}}`+"\n", args)
	if background {
		sc := bufio.NewScanner(p.stdout)
		for sc.Scan() {
			if strings.Contains(sc.Text(), `"id":2`) {
				if !strings.Contains(sc.Text(), "background") {
					t.Fatalf("the Bash call did not start a background task: %s", sc.Text())
				}
				break
			}
		}
	}
	return p
}
