// Package background runs goroutines that have an owner: each runs under a
// context the owner cancels, a panic in one is logged instead of ending the
// process, and the owner's Close waits for all of them, so nothing a server
// started outlives it.
package background

import (
	"context"
	"log/slog"
	"runtime/debug"
	"sync"
)

// Group is the goroutines of one owner. The zero value is not usable; call
// New.
type Group struct {
	ctx    context.Context
	cancel context.CancelFunc
	log    *slog.Logger
	wg     sync.WaitGroup

	// mu guards closed, so that no goroutine is added while Close waits.
	mu     sync.Mutex
	closed bool
}

// New returns a group whose goroutines' panics go to log (nil discards).
func New(log *slog.Logger) *Group {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Group{ctx: ctx, cancel: cancel, log: log}
}

// Go runs f in its own goroutine with the group's context, which ends at
// Close. what names the work in the log of a panic. After Close, Go does
// nothing.
func (g *Group) Go(what string, f func(ctx context.Context)) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return
	}
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		defer func() {
			if p := recover(); p != nil {
				g.log.Error("background work panicked", "what", what, "panic", p, "stack", string(debug.Stack()))
			}
		}()
		f(g.ctx)
	}()
}

// Close cancels the group's context and waits for its goroutines to
// return. Safe to call more than once.
func (g *Group) Close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	g.cancel()
	g.wg.Wait()
}
