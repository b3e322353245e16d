package background

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// syncBuffer is a log destination safe for concurrent writes.
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

func TestCloseCancelsAndWaits(t *testing.T) {
	g := New(nil)
	started := make(chan struct{})
	var sawCancel bool
	g.Go("waiting", func(ctx context.Context) {
		close(started)
		<-ctx.Done()
		sawCancel = true // read after Close: Close must have waited
	})
	<-started
	g.Close()
	if !sawCancel {
		t.Fatal("Close returned before the goroutine saw its context end")
	}
	ran := false
	g.Go("late", func(context.Context) { ran = true })
	g.Close()
	if ran {
		t.Error("a goroutine started after Close ran")
	}
}

func TestPanicIsLoggedNotFatal(t *testing.T) {
	var logs syncBuffer
	g := New(slog.New(slog.NewTextHandler(&logs, nil)))
	g.Go("exploding", func(context.Context) { panic("boom") })
	g.Close()
	if out := logs.String(); !strings.Contains(out, "exploding") || !strings.Contains(out, "boom") {
		t.Errorf("log %q does not name the work and the panic", out)
	}
}
