package lspserver

import (
	"encoding/json"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/script"
)

// gate is a client's reading end: writes pass until holding is set, then
// wait until release is closed, like a client that stopped reading;
// waiting is closed when the first write starts to wait.
type gate struct {
	holding  atomic.Bool
	release  chan struct{}
	waiting  chan struct{}
	waitOnce sync.Once
	out      io.Writer
}

func (g *gate) Write(p []byte) (int, error) {
	if g.holding.Load() {
		g.waitOnce.Do(func() { close(g.waiting) })
		<-g.release
	}
	return g.out.Write(p)
}

// TestReadsWaitWhileTheClientReadsNothing: a client sending requests and
// reading none of the answers meets backpressure once maxInFlight requests
// run (the server reads no further, so the client's writes block) instead
// of having every request read, run and kept; once it reads, every request
// is answered.
func TestReadsWaitWhileTheClientReadsNothing(t *testing.T) {
	held := make(chan struct{})
	var once sync.Once
	flowHeld = func() { once.Do(func() { close(held) }) }
	t.Cleanup(func() { flowHeld = nil })

	g := &gate{release: make(chan struct{}), waiting: make(chan struct{})}
	c := startServerOut(t, Options{}, func(out io.Writer) io.Writer { g.out = out; return g })
	var released sync.Once
	release := func() { released.Do(func() { close(g.release) }) }
	t.Cleanup(release) // answers stuck in the gate would keep Serve from returning
	c.initialize(t.TempDir(), nil)

	// From here the client reads nothing. Each request carries 2 KB, so
	// that the requests overflow what the server's input buffer takes in
	// one read: a server reading them all lets the writes below finish.
	// The server holds its input once an answer is stuck (a write to the
	// client waits), so the first request goes alone and the rest follow
	// once its answer waits: sent at once, the reader could take all of
	// them in before any answer was tried, and the test failed 1-3 times
	// in 100 runs.
	g.holding.Store(true)
	const requests = 200
	pad := strings.Repeat("x", 2048)
	request := func(i int) error {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": i, "method": "toolhost/noSuchMethod", "params": map[string]any{"pad": pad}})
		return script.WriteFrame(c.w, body)
	}
	if err := request(1); err != nil {
		t.Fatal(err)
	}
	select {
	case <-g.waiting:
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not try to answer the first request within 30 s")
	}
	written := make(chan error, 1)
	go func() {
		for i := 2; i <= requests; i++ {
			if err := request(i); err != nil {
				written <- err
				return
			}
		}
		written <- nil
	}()
	select {
	case <-held:
	case err := <-written:
		t.Fatalf("the server read all %d requests while none of their answers could be written (%v)", requests, err)
	case <-time.After(30 * time.Second):
		t.Fatal("the server neither held its input nor read it all")
	}

	release()
	if err, _ := await(c, "the rest of the requests to be read", written); err != nil {
		t.Fatal(err)
	}
	answered := map[float64]bool{}
	for len(answered) < requests {
		select {
		case m := <-c.msgs:
			if id, ok := m["id"].(float64); ok && m["error"] != nil {
				answered[id] = true
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%d of %d requests answered once the client read", len(answered), requests)
		}
	}
}
