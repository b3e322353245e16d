//go:build unix

package mcpserver

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/toolhost/toolhost/internal/testproc"
)

// isolatedEnv keeps the user's settings and caches out of a toolhost run,
// with bypassPermissions chosen in the user's own settings.
func isolatedEnv(t *testing.T) []string {
	t.Helper()
	home := t.TempDir()
	conf := filepath.Join(home, "config", "toolhost")
	if err := os.MkdirAll(conf, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(conf, "settings.json"), []byte(`{"permissions":{"defaultMode":"bypassPermissions"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(home, "config"), "XDG_CACHE_HOME="+filepath.Join(home, "cache"))
}

func wantAllGone(t *testing.T, how string, pids map[string]int) {
	t.Helper()
	for name, pid := range pids {
		if !testproc.EventuallyGone(pid) {
			t.Errorf("%s: the %s process %d outlived the server", how, name, pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// However the server ends, no process a call started outlives it.
func TestNoProcessOutlivesTheServer(t *testing.T) {
	bin := toolhostBinary(t)
	env := isolatedEnv(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			input, _ := json.Marshal(map[string]any{"command": testproc.EscapingScript(dir), "timeout": 600000})
			cmd := exec.Command(bin, "call", "Bash", string(input))
			cmd.Dir, cmd.Env = dir, env
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pids := testproc.EscapedPIDs(t, dir)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			wantAllGone(t, sig.String(), pids)
		})
	}
}

// A background task and what it left end when the server is killed, or
// hung up on (a closed terminal).
func TestBackgroundTasksEndWithAKilledServer(t *testing.T) {
	bin := toolhostBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			p := startBash(t, bin, dir, testproc.EscapingScript(dir), true)
			pids := testproc.EscapedPIDs(t, dir)
			if err := p.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			go io.Copy(io.Discard, p.stdout)
			p.wait(t)
			wantAllGone(t, sig.String(), pids)
		})
	}
}
