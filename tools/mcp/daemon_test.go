//go:build linux

package mcp

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/toolhost/toolhost/internal/lifetime"
	"github.com/toolhost/toolhost/internal/testnpm"
	"github.com/toolhost/toolhost/internal/testproc"
	"github.com/toolhost/toolhost/settings"
)

// An MCP server's processes end with it, not only with the session: a
// server removed from the settings (or stopped by a reload, a revoked trust,
// a restart) takes the daemons it forked — a setsid child, a double fork,
// a plain background child — with it.
func TestAStoppedServerTakesItsDaemonsWithIt(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid is not installed")
	}
	dir := t.TempDir()
	script := testproc.EscapingScript(dir)
	// The script's last line waits; the server runs in its place instead.
	script = strings.TrimSuffix(script, "wait") + "exec node " + shellQuote(testnpm.EverythingScript(t)) + " stdio"
	s := settings.Defaults()
	s.MCPServers = map[string]settings.MCPServer{"forks": {Command: "sh", Args: []string{"-c", script}}}
	m, _, log := startManager(t, t.TempDir(), nil, func(o *Options) {
		o.Settings = func() *settings.Settings { return s }
	})
	log.waitFor(t, 0, "forks connected", connected("forks"))
	pids := testproc.EscapedPIDs(t, dir)
	t.Cleanup(func() {
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})

	s = settings.Defaults()
	if err := m.Reload(); err != nil {
		t.Fatal(err)
	}
	log.waitFor(t, 0, "forks stopped", func(st ServerStatus) bool { return st.Name == "forks" && st.State == StateStopped })
	for how, pid := range pids {
		if !testproc.EventuallyGone(pid) {
			t.Errorf("the server's %s process %d outlived the server", how, pid)
		}
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// A helper an MCP server starts detached with an empty environment (env -i
// setsid), which no label can follow, ends with the session.
func TestAServersEnvClearedHelperEndsWithTheSession(t *testing.T) {
	if err := lifetime.CgroupStatus(); err != nil {
		t.Skipf("no cgroups here (%v): such a helper is beyond the label", err)
	}
	dir := t.TempDir()
	script := testproc.EnvClearingScript(dir) + "\nexec node " + shellQuote(testnpm.EverythingScript(t)) + " stdio"
	m, _, log := startManager(t, t.TempDir(), map[string]settings.MCPServer{"helpers": {Command: "sh", Args: []string{"-c", script}}}, nil)
	log.waitFor(t, 0, "helpers connected", connected("helpers"))
	pids := testproc.EnvClearedPIDs(t, dir)
	t.Cleanup(func() {
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	for how, pid := range pids {
		if testproc.Gone(pid) {
			t.Fatalf("the %s helper %d ended before the session", how, pid)
		}
	}
	m.Close()
	for how, pid := range pids {
		if !testproc.EventuallyGone(pid) {
			t.Errorf("the server's %s helper %d outlived the session", how, pid)
		}
	}
}
