package lspserver

import (
	"context"
	"io"
	"sync"
)

// Backpressure on a client that does not read. Every request runs in its
// own goroutine, and its result is held until the client reads it: a
// client that keeps sending requests without reading the answers (a hung
// editor, a broken script) would have the server read, run and keep every
// one. The read loop therefore waits before starting another request while
// maxInFlight requests are running and a write to the client is stuck; the
// client's own writes then block. A client that reads never waits, so the
// answers it owes the server (applyEdit, permission prompts) keep flowing
// however many calls it has running.

// maxInFlight is how many requests may run while the client reads nothing.
const maxInFlight = 64

// flow watches the writes to the client and the running requests.
type flow struct {
	out io.Writer

	mu sync.Mutex
	// writing counts the writes under way; running the requests started
	// and not yet answered.
	writing, running int
	// changed is closed, and replaced, whenever either count goes down.
	changed chan struct{}
	// held, when set, is called as the read loop starts waiting (tests).
	held func()
}

func newFlow(out io.Writer) *flow {
	return &flow{out: out, changed: make(chan struct{}), held: flowHeld}
}

// flowHeld is the held hook of the flows made from now on (tests).
var flowHeld func()

// Write passes p to the client, counted as under way while it lasts.
func (f *flow) Write(p []byte) (int, error) {
	f.mu.Lock()
	f.writing++
	f.mu.Unlock()
	n, err := f.out.Write(p)
	f.mu.Lock()
	f.writing--
	f.signal()
	f.mu.Unlock()
	return n, err
}

// signal wakes the waiters; called with mu held.
func (f *flow) signal() {
	close(f.changed)
	f.changed = make(chan struct{})
}

// start counts a request about to run, after waiting, while the client
// reads nothing and maxInFlight run already, until one of the two ends or
// ctx does.
func (f *flow) start(ctx context.Context) {
	for called := false; ; called = true {
		f.mu.Lock()
		if f.running < maxInFlight || f.writing == 0 {
			f.running++
			f.mu.Unlock()
			return
		}
		changed, held := f.changed, f.held
		f.mu.Unlock()
		if !called && held != nil {
			held()
		}
		select {
		case <-changed:
		case <-ctx.Done():
			f.mu.Lock()
			f.running++
			f.mu.Unlock()
			return
		}
	}
}

// done counts a request answered.
func (f *flow) done() {
	f.mu.Lock()
	f.running--
	f.signal()
	f.mu.Unlock()
}
