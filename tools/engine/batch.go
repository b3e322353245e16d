package engine

import (
	"context"
	"github.com/toolhost/toolhost/tools"
	"sync"
	"time"

	"github.com/toolhost/toolhost/internal/pathutil"
)

// Texts of the results of calls a cancelled batch did not finish.
const (
	interruptedBeforeRun = "Error: interrupted: the batch was cancelled before this call ran; call it again if it is still needed."
	interruptedWhileRun  = "Error: interrupted: the batch was cancelled while this call ran; it may have done part of its work, so check its effects before calling it again."
)

// CallBatch runs the calls of one model turn (toolhost/callTools) and
// returns their responses in the order given, each with its CallID.
//
// Calls run concurrently unless they conflict; a call that conflicts with
// earlier calls of the batch starts once those have finished, so conflicting
// calls run in the order given. What a call touches comes from its tool's
// Access for the input as given (paths resolved to absolute ones):
//
//   - two calls conflict when one writes a path the other reads or writes;
//     a path conflicts with the paths below it (a write to dir/a.go and a
//     Grep of dir), so a search sees the write the model ordered before it;
//   - two calls that name the same Exclusive category (e.g. "shell")
//     conflict;
//   - a call whose tool declares no Access and whose side effect is none or
//     blocking conflicts with nothing;
//   - a call whose tool declares no Access but has any other side effect
//     (an MCP tool, a state change) may touch anything: it conflicts with
//     every other call, so it runs alone, after the calls before it and
//     before the calls after it;
//   - unknown and disabled tools conflict with nothing (they fail at once).
//
// A hook or a permission prompt that rewrites a call's input does not
// change where the call was scheduled.
//
// Cancelling ctx ends the running calls; they, and the calls that had not
// started, get an "interrupted" error result. CallBatch never returns an
// error: every call gets a response.
func (p *Pipeline) CallBatch(ctx context.Context, host tools.Host, reqs []Request) []*Response {
	if host == nil {
		host = tools.NoHost{}
	}
	claims := make([]claim, len(reqs))
	for i, r := range reqs {
		claims[i] = p.claim(r)
	}
	deps := plan(claims)

	out := make([]*Response, len(reqs))
	done := make([]chan struct{}, len(reqs))
	for i := range done {
		done[i] = make(chan struct{})
	}
	slots := make(chan struct{}, p.maxParallel)
	// The changes of the batch that wait for the user are reviewed as one
	// once every call is planned (review.go).
	mark := newBatchMark(len(reqs))
	var wg sync.WaitGroup
	for i := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done[i])
			out[i] = p.scheduled(withBatch(ctx, mark), host, reqs[i], i, deps[i], done, slots)
		}()
	}
	wg.Wait()
	return out
}

// scheduled runs call i once the calls it depends on have finished and a
// slot is free.
func (p *Pipeline) scheduled(ctx context.Context, host tools.Host, req Request, i int, deps []int, done []chan struct{}, slots chan struct{}) *Response {
	// Planned (review.go) however it ends; and while it waits for another
	// call or a slot, which may be held by a call in review.
	defer settle(ctx)
	if len(deps) > 0 {
		settle(ctx)
		if p.waiting != nil {
			p.waiting(i, deps)
		}
	}
	for _, d := range deps {
		select {
		case <-done[d]:
		case <-ctx.Done():
			return interrupted(req, interruptedBeforeRun, 0)
		}
	}
	select {
	case slots <- struct{}{}:
	default:
		settle(ctx)
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return interrupted(req, interruptedBeforeRun, 0)
		}
	}
	defer func() { <-slots }()
	if ctx.Err() != nil {
		return interrupted(req, interruptedBeforeRun, 0)
	}
	start := time.Now()
	resp, err := p.Call(ctx, host, req)
	if err != nil {
		return interrupted(req, interruptedWhileRun, time.Since(start))
	}
	return resp
}

func interrupted(req Request, text string, ran time.Duration) *Response {
	return &Response{
		CallID:     req.CallID,
		Result:     &tools.Result{IsError: true, Content: []tools.Content{{Type: "text", Text: text}}},
		DurationMs: ran.Milliseconds(),
	}
}

// claim is what one call of a batch touches.
type claim struct {
	reads, writes []string
	exclusive     []string
	// global: the call may touch anything.
	global bool
}

// claim derives what req touches from its tool (see CallBatch).
func (p *Pipeline) claim(req Request) claim {
	entry, ok := p.Registry.Lookup(req.Name)
	if !ok || !entry.Enabled {
		return claim{}
	}
	t := entry.Tool
	if _, ok := t.(tools.AccessDescriber); !ok {
		switch t.SideEffect() {
		case tools.SideEffectNone, tools.SideEffectBlocking:
			return claim{}
		}
		return claim{global: true}
	}
	a := p.access(t, normalInput(req.Input), nil)
	return claim{reads: a.ReadPaths, writes: a.WritePaths, exclusive: a.Exclusive}
}

// plan returns, for each call, the earlier calls it conflicts with.
func plan(claims []claim) [][]int {
	deps := make([][]int, len(claims))
	for i := range claims {
		for j := 0; j < i; j++ {
			if conflict(claims[i], claims[j]) {
				deps[i] = append(deps[i], j)
			}
		}
	}
	return deps
}

// conflict reports whether a and b must not run at the same time.
func conflict(a, b claim) bool {
	if a.global || b.global {
		return true
	}
	for _, x := range a.exclusive {
		for _, y := range b.exclusive {
			if x == y {
				return true
			}
		}
	}
	return overlaps(a.writes, b.writes) || overlaps(a.writes, b.reads) || overlaps(a.reads, b.writes)
}

// overlaps reports whether a path of xs is, contains or lies in a path of ys.
func overlaps(xs, ys []string) bool {
	for _, x := range xs {
		for _, y := range ys {
			if pathutil.Within(x, y) || pathutil.Within(y, x) {
				return true
			}
		}
	}
	return false
}
