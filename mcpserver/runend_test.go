package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/engine"
)

// errorRecords counts the records logged at ERROR level or above, through
// every logger derived from it.
type errorRecords struct {
	n    *atomic.Int32
	last *atomic.Value
}

func newErrorRecords() errorRecords {
	return errorRecords{n: new(atomic.Int32), last: new(atomic.Value)}
}

func (h errorRecords) Enabled(context.Context, slog.Level) bool { return true }
func (h errorRecords) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h errorRecords) WithGroup(string) slog.Handler            { return h }
func (h errorRecords) Handle(_ context.Context, r slog.Record) error {
	if r.Level >= slog.LevelError {
		h.n.Add(1)
		h.last.Store(r.Message)
	}
	return nil
}

// A server stopped by its context (SIGTERM, the end of the editor session)
// ends its client's session and says nothing at error level: that is the
// normal way to stop.
func TestRunEndedByItsContextIsNoError(t *testing.T) {
	errs := newErrorRecords()
	reg := tools.NewRegistry()
	reg.Register(tools.CategoryCore, stepsTool{})
	srv := New(reg, engine.NewPipeline(reg, nil), slog.New(errs))
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
	if n := errs.n.Load(); n > 0 {
		t.Errorf("a stop by the context was logged as an error %d times, the last: %v", n, errs.last.Load())
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
	srv := New(reg, engine.NewPipeline(reg, nil), nil)
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
