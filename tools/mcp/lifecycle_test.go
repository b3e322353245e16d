//go:build unix

package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testnpm"
	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
)

// withToolCount makes each state change also record how many tools of the
// server were registered at that moment.
func withToolCount(reg *tools.Registry, log *stateLog, counts *[]int) func(*Options) {
	return func(o *Options) {
		o.OnStateChange = func(st ServerStatus) {
			n := 0
			for _, name := range reg.Names() {
				if strings.HasPrefix(name, ToolPrefix(st.Name)) {
					n++
				}
			}
			log.mu.Lock()
			*counts = append(*counts, n)
			log.mu.Unlock()
			log.record(st)
		}
	}
}

func TestCrashedServerIsRestarted(t *testing.T) {
	reg := tools.NewRegistry()
	log := newStateLog()
	var counts []int
	tweak := withToolCount(reg, log, &counts)
	m, _, _ := startManagerIn(t, reg, t.TempDir(), map[string]settings.MCPServer{"everything": everythingServer(t)}, func(o *Options) {
		tweak(o)
		o.RestartBackoff = 10 * time.Millisecond
	})
	first, i := log.waitFor(t, 0, "connected", connected("everything"))

	if err := syscall.Kill(first.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	failed, j := log.waitFor(t, i+1, "failed after kill", func(st ServerStatus) bool { return st.State == StateFailed })
	if !strings.Contains(failed.LastError, "exited") {
		t.Errorf("last error %q does not say the process exited", failed.LastError)
	}
	log.mu.Lock()
	toolsWhenFailed := counts[j]
	log.mu.Unlock()
	if toolsWhenFailed != 0 {
		t.Errorf("%d tools still registered after the crash", toolsWhenFailed)
	}
	again, _ := log.waitFor(t, j+1, "connected again", connected("everything"))
	if again.Restarts != 1 || again.PID == first.PID || again.Tools != first.Tools {
		t.Fatalf("after restart: %+v, before: %+v", again, first)
	}
	if _, ok := reg.Lookup("mcp__everything__echo"); !ok {
		t.Fatal("echo not registered after the restart")
	}
	if res, _ := call(t, reg, "mcp__everything__echo", map[string]any{"message": "back"}); res.IsError {
		t.Fatalf("echo after restart: %s", res.Text())
	}
	m.Close()
	if err := syscall.Kill(again.PID, 0); err == nil {
		t.Fatalf("server process %d still runs after Close", again.PID)
	}
}

func TestCallToDownServerNamesIt(t *testing.T) {
	m, reg, log := startManager(t, t.TempDir(), map[string]settings.MCPServer{"everything": everythingServer(t)}, func(o *Options) {
		o.RestartBackoff = time.Hour // stays down for the test
	})
	st, i := log.waitFor(t, 0, "connected", connected("everything"))
	echo, ok := reg.Lookup("mcp__everything__echo")
	if !ok {
		t.Fatal("echo not registered")
	}
	if err := syscall.Kill(st.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	log.waitFor(t, i+1, "failed", func(st ServerStatus) bool { return st.State == StateFailed })

	res, err := echo.Tool.Execute(context.Background(), &tools.Call{Input: []byte(`{"message":"x"}`), Host: tools.NoHost{}, Progress: tools.NoProgress{}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Text()
	for _, want := range []string{"Error: ", `"everything"`, "not connected", "exited", "restarted automatically"} {
		if !res.IsError || !strings.Contains(text, want) {
			t.Fatalf("result %q lacks %q", text, want)
		}
	}
	if got := m.Status(); len(got) != 1 || got[0].State != StateFailed {
		t.Fatalf("status = %+v", got)
	}
}

func TestServersThatCannotStart(t *testing.T) {
	tests := []struct {
		name    string
		server  settings.MCPServer
		wantErr string
	}{
		{
			name:    "never answers initialize",
			server:  settings.MCPServer{Command: "node", Args: []string{"-e", "setInterval(()=>{},1000)"}},
			wantErr: "did not complete the MCP initialize handshake within 300ms",
		},
		{
			name:    "command does not exist",
			server:  settings.MCPServer{Command: "toolhost-test-no-such-command"},
			wantErr: `cannot run "toolhost-test-no-such-command"`,
		},
		{
			name:    "exits at once",
			server:  settings.MCPServer{Command: "node", Args: []string{"-e", "console.error('boom: missing token'); process.exit(3)"}},
			wantErr: "boom: missing token",
		},
		{
			name:    "http without url",
			server:  settings.MCPServer{Type: "http"},
			wantErr: "has no \"url\"",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.server.Command == "node" {
				testnpm.EverythingScript(t) // skips or fails when node_modules is missing
			}
			m, reg, log := startManager(t, t.TempDir(), map[string]settings.MCPServer{"bad": tc.server}, func(o *Options) {
				// Only the server that never answers waits for the timer;
				// the others must fail by their own cause, which a short
				// timer would pre-empt while node starts on a busy machine.
				if tc.name == "never answers initialize" {
					o.InitTimeout = 300 * time.Millisecond
				}
			})
			st, i := log.waitFor(t, 0, "failed", func(st ServerStatus) bool { return st.State == StateFailed })
			if !strings.Contains(st.LastError, tc.wantErr) {
				t.Fatalf("last error %q lacks %q", st.LastError, tc.wantErr)
			}
			if n := len(reg.Names()); n != 4 { // only the resource tools and RefreshMcpTools
				t.Fatalf("registry has %v", reg.Names())
			}
			m.Close() // waits for the supervisor: the log is complete
			log.mu.Lock()
			defer log.mu.Unlock()
			for _, later := range log.changes[i+1:] {
				if later.State != StateStopped || later.Restarts != 0 {
					t.Fatalf("a server that never started must stay failed, not restart: %+v", log.changes[i+1:])
				}
			}
		})
	}
}

func TestProjectServersNeedApproval(t *testing.T) {
	srv := everythingServer(t)
	tests := []struct {
		name      string
		enable    func(*settings.Settings)
		mode      string
		approve   func(context.Context, string) bool
		wantState State
	}{
		{name: "no approver denies", wantState: StateNeedsApproval},
		{name: "user denies", approve: func(context.Context, string) bool { return false }, wantState: StateNeedsApproval},
		{name: "user allows", approve: func(_ context.Context, name string) bool { return name == "proj" }, wantState: StateConnected},
		{name: "listed in enabledMcpjsonServers", enable: func(s *settings.Settings) { s.EnabledMCPJSONServers = []string{"proj"} }, wantState: StateConnected},
		{name: "enableAllProjectMcpServers", enable: func(s *settings.Settings) { s.EnableAllProjectMCPServers = true }, wantState: StateConnected},
		{name: "bypassPermissions mode", mode: tools.ModeBypassPermissions, wantState: StateConnected},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			t.Setenv("TOOLHOST_TEST_SCRIPT", srv.Args[0])
			project := `{"mcpServers": {"proj": {"command": "node", "args": ["${TOOLHOST_TEST_SCRIPT}", "${TRANSPORT:-stdio}"]}}}`
			if err := os.WriteFile(filepath.Join(root, ".mcp.json"), []byte(project), 0o644); err != nil {
				t.Fatal(err)
			}
			s := settings.Defaults()
			if tc.enable != nil {
				tc.enable(s)
			}
			asked := false
			_, reg, log := startManager(t, root, nil, func(o *Options) {
				o.Settings = func() *settings.Settings { return s }
				if tc.mode != "" {
					o.Mode = func() string { return tc.mode }
				}
				if tc.approve != nil {
					o.Approve = func(ctx context.Context, name string) bool { asked = true; return tc.approve(ctx, name) }
				}
			})
			st, _ := log.waitFor(t, 0, string(tc.wantState), func(st ServerStatus) bool {
				return st.State == tc.wantState && (st.State != StateNeedsApproval || st.LastError != "")
			})
			if st.Source != SourceProject {
				t.Errorf("source = %q", st.Source)
			}
			if tc.approve != nil && !asked {
				t.Error("the approver was not asked")
			}
			_, registered := reg.Lookup("mcp__proj__echo")
			if registered != (tc.wantState == StateConnected) {
				t.Fatalf("echo registered = %v in state %s", registered, st.State)
			}
		})
	}
}

func TestReloadStartsAndStopsServers(t *testing.T) {
	srv := everythingServer(t)
	s := settings.Defaults()
	s.MCPServers = map[string]settings.MCPServer{"a": srv}
	m, reg, log := startManager(t, t.TempDir(), nil, func(o *Options) {
		o.Settings = func() *settings.Settings { return s }
	})
	a, _ := log.waitFor(t, 0, "a connected", connected("a"))

	s = settings.Defaults()
	s.MCPServers = map[string]settings.MCPServer{"b": srv}
	if err := m.Reload(); err != nil {
		t.Fatal(err)
	}
	log.waitFor(t, 0, "b connected", connected("b"))
	if _, ok := reg.Lookup("mcp__a__echo"); ok {
		t.Error("a's tools remain after it was removed from the settings")
	}
	if _, ok := reg.Lookup("mcp__b__echo"); !ok {
		t.Error("b's tools are missing")
	}
	if err := syscall.Kill(a.PID, 0); err == nil {
		t.Errorf("a's process %d still runs", a.PID)
	}
	if got := m.Status(); len(got) != 1 || got[0].Name != "b" {
		t.Fatalf("status = %+v", got)
	}
}

func TestCancelledContextEndsServers(t *testing.T) {
	reg := tools.NewRegistry()
	log := newStateLog()
	s := settings.Defaults()
	s.MCPServers = map[string]settings.MCPServer{"everything": everythingServer(t)}
	m := New(reg, Options{Root: t.TempDir(), Settings: func() *settings.Settings { return s }, OnStateChange: log.record})
	ctx, cancel := context.WithCancel(context.Background())
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	st, i := log.waitFor(t, 0, "connected", connected("everything"))
	cancel()
	log.waitFor(t, i+1, "stopped", func(st ServerStatus) bool { return st.State == StateStopped })
	if err := syscall.Kill(st.PID, 0); err == nil {
		t.Fatalf("server process %d still runs after the context ended", st.PID)
	}
	if _, ok := reg.Lookup("mcp__everything__echo"); ok {
		t.Fatal("tools of a stopped server remain registered")
	}
	m.Close()
}

func TestReloadRetriesFailedServers(t *testing.T) {
	dir := t.TempDir()
	command := filepath.Join(dir, "server.sh")
	s := settings.Defaults()
	s.MCPServers = map[string]settings.MCPServer{"late": {Command: command}}
	m, reg, log := startManager(t, t.TempDir(), nil, func(o *Options) {
		o.Settings = func() *settings.Settings { return s }
	})
	_, i := log.waitFor(t, 0, "failed", func(st ServerStatus) bool { return st.State == StateFailed })

	// The command is installed afterwards; the configuration is unchanged.
	script := "#!/bin/sh\nexec node " + everythingServer(t).Args[0] + " stdio\n"
	if err := os.WriteFile(command, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := m.Reload(); err != nil {
		t.Fatal(err)
	}
	log.waitFor(t, i+1, "connected after reload", connected("late"))
	if _, ok := reg.Lookup("mcp__late__echo"); !ok {
		t.Fatal("tools missing after the retry")
	}
}

// TestApprovalSavedWhileAskingKeepsTheServer: saving an approval reloads
// the settings, and so the MCP servers, while the server that asked still
// waits for the answer. That reload must leave the asking server alone
// rather than stop it and start a second copy.
func TestApprovalSavedWhileAskingKeepsTheServer(t *testing.T) {
	srv := everythingServer(t)
	root := t.TempDir()
	t.Setenv("TOOLHOST_TEST_SCRIPT", srv.Args[0])
	project := `{"mcpServers": {"proj": {"command": "node", "args": ["${TOOLHOST_TEST_SCRIPT}", "stdio"]}}}`
	if err := os.WriteFile(filepath.Join(root, ".mcp.json"), []byte(project), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	s := settings.Defaults()
	// The approval can be asked before startManager returns the manager.
	manager := make(chan *Manager, 1)
	m, _, log := startManager(t, root, nil, func(o *Options) {
		o.Settings = func() *settings.Settings { mu.Lock(); defer mu.Unlock(); return s }
		o.Approve = func(context.Context, string) bool {
			// What the session does: save the approval, which reloads.
			mu.Lock()
			next := *s
			next.EnabledMCPJSONServers = []string{"proj"}
			s = &next
			mu.Unlock()
			reloaded := make(chan error, 1)
			go func() { reloaded <- (<-manager).Reload() }()
			// A reload that stops this server waits for this very call to
			// return: it would never finish. The deadline turns that
			// deadlock into a failure.
			select {
			case err := <-reloaded:
				if err != nil {
					t.Error(err)
				}
			case <-time.After(10 * time.Second):
				t.Error("the reload waited for the server that is asking for approval")
			}
			return true
		}
	})
	manager <- m
	_, i := log.waitFor(t, 0, "connected", func(st ServerStatus) bool { return st.State == StateConnected })
	log.mu.Lock()
	defer log.mu.Unlock()
	for _, st := range log.changes[:i] {
		if st.State == StateStopped {
			t.Fatalf("the asking server was stopped by the reload: %+v", log.changes)
		}
	}
}
