package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

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
