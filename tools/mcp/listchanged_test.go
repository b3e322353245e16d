package mcp

import (
	"runtime"
	"testing"

	"github.com/toolhost/toolhost/internal/testproc"
	"github.com/toolhost/toolhost/settings"
)

// A server flooding notifications/tools/list_changed while a refresh runs
// costs one waiting refresh, not a goroutine per notification, and the
// waiting one lists the tools once the running one is done.
func TestListChangedFloodIsFolded(t *testing.T) {
	m, reg, log := startManager(t, t.TempDir(), map[string]settings.MCPServer{"everything": everythingServer(t)}, nil)
	log.waitFor(t, 0, "connected", connected("everything"))
	s := m.server("everything")
	cs, _ := s.current()
	if cs == nil {
		t.Fatal("no session")
	}
	tools := len(reg.Names())

	s.refreshMu.Lock() // a refresh is running
	before := runtime.NumGoroutine()
	const notifications = 2000
	for range notifications {
		s.toolListChanged(cs)
	}
	if grown := runtime.NumGoroutine() - before; grown > 10 {
		t.Errorf("%d notifications left %d more goroutines, want one waiting refresh", notifications, grown)
	}
	s.refreshMu.Unlock()

	queued := func() bool {
		s.changedMu.Lock()
		defer s.changedMu.Unlock()
		return s.changedQueued
	}
	// Done: none waits, and none holds the lock (a refresh holds it until
	// it has registered the tools).
	testproc.WaitFor(t, "the waiting refresh to run", func() bool {
		if queued() || !s.refreshMu.TryLock() {
			return false
		}
		defer s.refreshMu.Unlock()
		return !queued()
	})
	if n := len(reg.Names()); n != tools {
		t.Errorf("%d tools registered after the refresh, want %d as before", n, tools)
	}
}
