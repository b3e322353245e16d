package mcp

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testnpm"
	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
)

// everythingServer is the configuration of server-everything on stdio.
func everythingServer(t *testing.T) settings.MCPServer {
	return settings.MCPServer{Command: "node", Args: []string{testnpm.EverythingScript(t), "stdio"}}
}

// stateLog records every state change a manager reports, so tests wait for
// states instead of sleeping.
type stateLog struct {
	mu      sync.Mutex
	changes []ServerStatus
	wake    chan struct{}
}

func newStateLog() *stateLog { return &stateLog{wake: make(chan struct{}, 1)} }

func (l *stateLog) record(st ServerStatus) {
	l.mu.Lock()
	l.changes = append(l.changes, st)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// waitFor waits until a recorded change after index from satisfies ok and
// returns it with its index. The deadline only bounds a hung test.
func (l *stateLog) waitFor(t *testing.T, from int, what string, ok func(ServerStatus) bool) (ServerStatus, int) {
	t.Helper()
	deadline := time.NewTimer(90 * time.Second)
	defer deadline.Stop()
	for {
		l.mu.Lock()
		for i := from; i < len(l.changes); i++ {
			if ok(l.changes[i]) {
				st := l.changes[i]
				l.mu.Unlock()
				return st, i
			}
		}
		l.mu.Unlock()
		select {
		case <-l.wake:
		case <-deadline.C:
			l.mu.Lock()
			defer l.mu.Unlock()
			t.Fatalf("no state change: %s; changes: %+v", what, l.changes)
		}
	}
}

// startManager starts a manager over the given servers and closes it when
// the test ends.
func startManager(t *testing.T, root string, servers map[string]settings.MCPServer, tweak func(*Options)) (*Manager, *tools.Registry, *stateLog) {
	t.Helper()
	return startManagerIn(t, tools.NewRegistry(), root, servers, tweak)
}

// startManagerIn is startManager with a registry made by the caller.
func startManagerIn(t *testing.T, reg *tools.Registry, root string, servers map[string]settings.MCPServer, tweak func(*Options)) (*Manager, *tools.Registry, *stateLog) {
	t.Helper()
	log := newStateLog()
	s := settings.Defaults()
	s.MCPServers = servers
	opts := Options{Root: root, Settings: func() *settings.Settings { return s }, OnStateChange: log.record}
	if tweak != nil {
		tweak(&opts)
	}
	m := New(reg, opts)
	if err := m.Start(context.Background()); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(m.Close)
	return m, reg, log
}

// call runs a registered tool directly with a recording progress.
func call(t *testing.T, reg *tools.Registry, name string, input any) (*tools.Result, *recordedProgress) {
	t.Helper()
	e, ok := reg.Lookup(name)
	if !ok {
		t.Fatalf("tool %s is not registered; have %v", name, reg.Names())
	}
	b, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	p := &recordedProgress{}
	res, err := e.Tool.Execute(context.Background(), &tools.Call{ID: "t", Name: name, Input: b, Host: tools.NoHost{}, Progress: p})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res, p
}

type recordedProgress struct {
	mu       sync.Mutex
	messages []string
}

func (p *recordedProgress) Report(msg string) {
	p.mu.Lock()
	p.messages = append(p.messages, msg)
	p.mu.Unlock()
}

func (p *recordedProgress) Messages() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.messages...)
}

func connected(name string) func(ServerStatus) bool {
	return func(st ServerStatus) bool { return st.Name == name && st.State == StateConnected }
}
