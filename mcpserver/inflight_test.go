package mcpserver

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// heldWriter is a client that does not read: every write waits until
// release is closed. entered is sent to (when it has room) as a write
// starts waiting.
type heldWriter struct{ release, entered chan struct{} }

func (h heldWriter) Write(p []byte) (int, error) {
	select {
	case h.entered <- struct{}{}:
	default:
	}
	<-h.release
	return len(p), nil
}

// TestGuardHoldsInputWhileAnswersAreNotRead: with the client reading none
// of its answers, the guard passes requests only up to its in-flight cap
// and then reads no more input (the client's writes meet backpressure);
// once the answers are read, every request passes and is answered.
func TestGuardHoldsInputWhileAnswersAreNotRead(t *testing.T) {
	const requests, limit = 200, 8
	var input strings.Builder
	for i := 1; i <= requests; i++ {
		fmt.Fprintf(&input, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"Read"}}`+"\n", i)
	}
	out := heldWriter{release: make(chan struct{}), entered: make(chan struct{}, 1)}
	w := newLockedWriter(out)
	g := newLineGuard(strings.NewReader(input.String()), w, 0, slog.New(slog.DiscardHandler))
	g.inFlight, g.drain = limit, 0
	full := make(chan struct{})
	var once sync.Once
	g.full = func() { once.Do(func() { close(full) }) }

	// The SDK's part: read each request and answer it from its own
	// goroutine, as a handler would.
	var read atomic.Int64
	var answers sync.WaitGroup
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(g)
		for sc.Scan() {
			var req struct {
				ID json.RawMessage `json:"id"`
			}
			if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
				t.Errorf("the guard passed %q: %v", sc.Bytes(), err)
				continue
			}
			answers.Go(func() { _, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{}}`+"\n") })
			if read.Add(1) == 1 {
				// The first answer is being written (and stays stuck):
				// from here on the client is not reading.
				<-out.entered
			}
		}
	}()

	select {
	case <-full:
	case <-done:
		t.Fatalf("the guard read all %d requests while none of their answers could be written", read.Load())
	case <-time.After(30 * time.Second):
		t.Fatalf("the guard neither held the input nor finished it; %d requests read", read.Load())
	}
	if n := read.Load(); n != limit {
		t.Errorf("%d requests passed before the guard held the input, want %d", n, limit)
	}
	close(out.release)
	<-done
	answers.Wait()
	if n := read.Load(); n != requests {
		t.Errorf("%d requests passed once the answers were read, want %d", n, requests)
	}
	if !w.asked.wait(0) {
		t.Error("requests are left unanswered")
	}
}
