//go:build unix

package mcpserver

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/toolhost/toolhost/internal/testproc"
)

// Under bash.sandbox no process a command starts outlives the server
// either, however it leaves: setsid, a double fork, nohup with disown, and
// even a process that drops its whole environment first (which the
// lifetime label cannot follow outside the sandbox): the sandbox's process
// namespace ends with its bubblewrap, which dies with the server.
func TestNoSandboxedProcessOutlivesAKilledServer(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Fatalf("bubblewrap is not installed (scripts/deps.sh installs it): %v", err)
	}
	bin := toolhostBinary(t)
	env := isolatedEnv(t)
	conf := filepath.Join(t.TempDir(), "config")
	if err := os.MkdirAll(filepath.Join(conf, "toolhost"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(conf, "toolhost", "settings.json"), []byte(`{"permissions":{"defaultMode":"bypassPermissions"},"bash":{"sandbox":true}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	env = append(env, "XDG_CONFIG_HOME="+conf)
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			// The sandbox has a process namespace of its own, so the
			// processes cannot tell their pids as seen from outside: each
			// runs under a name of its own (exec -a), found in /proc
			// once it has said it started.
			marker := "toolhost-sandbox-lifetime-" + strconv.Itoa(os.Getpid()) + "-" + sig.String()
			run := func(name string) string {
				return "bash -c 'touch " + name + ".started; exec -a " + marker + "-" + name + " sleep 1000'"
			}
			script := "setsid " + run("setsid") + " &\n" +
				"( setsid " + run("double") + " & ) &\n" +
				"nohup " + run("nohup") + " > /dev/null 2>&1 & disown\n" +
				"env -i /usr/bin/setsid /bin/" + run("envless") + " &\n" +
				"wait"
			input, _ := json.Marshal(map[string]any{"command": script, "timeout": 600000})
			cmd := exec.Command(bin, "call", "Bash", string(input))
			cmd.Dir, cmd.Env = dir, env
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pids := map[string]int{}
			for _, name := range []string{"setsid", "double", "nohup", "envless"} {
				testproc.WaitFor(t, name+" to start", func() bool {
					_, err := os.Stat(filepath.Join(dir, name+".started"))
					pids[name] = processNamed(marker + "-" + name)
					return err == nil && pids[name] > 0
				})
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			wantAllGone(t, sig.String(), pids)
		})
	}
}

// processNamed returns the pid of the process whose first argument is name
// (0 when there is none).
func processNamed(name string) int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.HasPrefix(string(cmdline), name+"\x00") {
			return pid
		}
	}
	return 0
}
