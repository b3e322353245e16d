package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/tools"
)

// syncBuffer is a bytes.Buffer the server's logger and the test share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// A server stopped by its context (SIGTERM, the end of the editor session)
// ends its client's session and says nothing at error level: that is the
// normal way to stop.
func TestRunEndedByItsContextIsNoError(t *testing.T) {
	var logged syncBuffer
	reg := tools.NewRegistry()
	reg.Register(tools.CategoryCore, stepsTool{})
	srv := New(reg, tools.NewPipeline(reg, nil), slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug})))
	serverT, clientT := sdk.NewInMemoryTransports()
	ctx, stop := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- srv.Run(ctx, serverT) }()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if err := <-ran; !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
	_ = cs.Wait()
	if strings.Contains(logged.String(), "level=ERROR") {
		t.Errorf("a stop by the context was logged as an error:\n%s", logged.String())
	}
}

// waitTool blocks until its call is cancelled, and says so.
type waitTool struct{ started, cancelled chan struct{} }

func (waitTool) Name() string        { return "Wait" }
func (waitTool) Description() string { return "Waits until cancelled." }
func (waitTool) InputSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object"}`)
}
func (waitTool) SideEffect() tools.SideEffect { return tools.SideEffectNone }
func (w waitTool) Execute(ctx context.Context, _ *tools.Call) (*tools.Result, error) {
	close(w.started)
	<-ctx.Done()
	close(w.cancelled)
	return nil, ctx.Err()
}

// A server stopped while a call runs (SIGTERM during a Bash command)
// cancels the call, rather than waiting for it until the grace period
// after the signal runs out.
func TestRunEndedByItsContextCancelsCallsInFlight(t *testing.T) {
	reg := tools.NewRegistry()
	wait := waitTool{started: make(chan struct{}), cancelled: make(chan struct{})}
	reg.Register(tools.CategoryCore, wait)
	srv := New(reg, tools.NewPipeline(reg, nil), nil)
	serverT, clientT := sdk.NewInMemoryTransports()
	ctx, stop := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- srv.Run(ctx, serverT) }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	called := make(chan struct{})
	go func() {
		defer close(called)
		_, _ = cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "Wait", Arguments: map[string]any{}})
	}()
	<-wait.started
	stop()
	// Bounded only so that a regression fails with a message instead of
	// hanging: the call is cancelled as the server stops.
	select {
	case <-wait.cancelled:
	case <-time.After(30 * time.Second):
		t.Fatal("the call in flight was not cancelled when the server stopped")
	}
	<-ran
	_ = cs.Close()
	<-called
}
