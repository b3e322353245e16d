package engine

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolhost/toolhost/internal/udiff"
	"github.com/toolhost/toolhost/internal/visible"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

// DefaultReviewWindow is how long a gathering of a turn's changes stays
// open with no new change when no batch bounds it: an agent that sends
// parallel single calls (three tools/call of an attached MCP agent) has
// them planned within it.
const DefaultReviewWindow = 200 * time.Millisecond

// maxReviewNoteDiff caps the diff the model is told of its proposal as the
// user modified it.
const maxReviewNoteDiff = 8000

// gatherer gathers the file changes of a turn that wait for the user's
// review into one toolhost/reviewChanges: the one place where changes are
// grouped (the tools know nothing of it). A gathering closes when every
// call of its batch has been planned (toolhost/callTools), or after a
// quiet window with no new change of its turn; the changes that arrive
// while its review is on screen form the next review.
type gatherer struct {
	window time.Duration
	// after starts the quiet window's timer: its channel and its stop
	// (time.NewTimer's). Tests replace it to end windows themselves.
	after func(time.Duration) (<-chan time.Time, func() bool)
	seq   atomic.Int64
	// joinedHook, set by tests, is told each time a change joined.
	joinedHook func()

	mu sync.Mutex
	// open is the gathering of each turn that still takes changes.
	open map[string]*gathering
}

func newGatherer() *gatherer {
	return &gatherer{
		window: DefaultReviewWindow,
		after: func(d time.Duration) (<-chan time.Time, func() bool) {
			t := time.NewTimer(d)
			return t.C, t.Stop
		},
		open: map[string]*gathering{},
	}
}

// gathering is one review being gathered, then shown. Its goroutine (run)
// owns the quiet window's timer and the request to the editor; the calls
// that joined wait for it to end (done), and the last call to leave
// cancels it and waits.
type gathering struct {
	key      string
	id       string
	reviewer tools.ChangeReviewer
	origin   workspace.Origin
	// batch, when set, closes the gathering once every call of the batch
	// is planned: no quiet window.
	batch *batchMark
	// joined is told, without blocking, that a change joined: the quiet
	// window starts again.
	joined chan struct{}
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	// guarded by gatherer.mu:
	entries []*reviewEntry
	live    int
	ids     map[string]bool

	// set by run before done is closed:
	answers map[string]tools.ReviewAnswer
	err     error
}

// reviewEntry is one change in a gathering.
type reviewEntry struct {
	change tools.ReviewChange
	left   bool // guarded by gatherer.mu
}

// reviewKey is the turn a change belongs to: its turn id, else its agent.
func reviewKey(o workspace.Origin) string {
	if o.Turn != "" {
		return "turn\x00" + o.Turn
	}
	return "agent\x00" + o.Agent
}

// join adds change to the open gathering of ctx's turn (or opens one) and
// waits for the user's answer on it. An answer missing from the review's
// (a dismissed review included) is a rejection with decision "".
func (g *gatherer) join(ctx context.Context, reviewer tools.ChangeReviewer, change tools.ReviewChange) (tools.ReviewAnswer, error) {
	origin := workspace.OriginOf(ctx)
	key := reviewKey(origin)
	e := &reviewEntry{change: change}
	g.mu.Lock()
	gt := g.open[key]
	start := gt == nil
	if start {
		gctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		gt = &gathering{
			key: key, id: "review-" + strconv.FormatInt(g.seq.Add(1), 10), reviewer: reviewer, origin: origin,
			batch: batchOf(ctx), joined: make(chan struct{}, 1), ctx: gctx, cancel: cancel,
			done: make(chan struct{}), ids: map[string]bool{},
		}
		g.open[key] = gt
	}
	// Each change needs an id of its own in the review: calls without one,
	// or with one given twice, get one.
	if e.change.CallID == "" || gt.ids[e.change.CallID] {
		e.change.CallID = fmt.Sprintf("%s-%d", gt.id, len(gt.entries)+1)
	}
	gt.ids[e.change.CallID] = true
	gt.entries = append(gt.entries, e)
	gt.live++
	g.mu.Unlock()
	if start {
		go gt.run(g)
	} else {
		select {
		case gt.joined <- struct{}{}:
		default:
		}
	}
	if g.joinedHook != nil {
		g.joinedHook()
	}
	// This call of a batch is planned: once all are, the review is sent.
	settle(ctx)

	select {
	case <-gt.done:
		if gt.err != nil {
			return tools.ReviewAnswer{}, gt.err
		}
		return gt.answers[e.change.CallID], nil
	case <-ctx.Done():
		g.mu.Lock()
		e.left = true
		gt.live--
		last := gt.live == 0
		g.mu.Unlock()
		if last {
			// Nobody waits for the answer: the review closes
			// ($/cancelRequest) and the gathering ends.
			gt.cancel()
			<-gt.done
		}
		return tools.ReviewAnswer{}, ctx.Err()
	}
}

// run waits for the gathering to close, sends the review and keeps the
// answers.
func (gt *gathering) run(g *gatherer) {
	defer close(gt.done)
	defer gt.cancel()
	if !gt.wait(g) {
		g.mu.Lock()
		if g.open[gt.key] == gt {
			delete(g.open, gt.key)
		}
		g.mu.Unlock()
		gt.err = gt.ctx.Err()
		return
	}
	g.mu.Lock()
	if g.open[gt.key] == gt {
		delete(g.open, gt.key)
	}
	var changes []tools.ReviewChange
	for _, e := range gt.entries {
		if !e.left {
			changes = append(changes, e.change)
		}
	}
	g.mu.Unlock()
	if len(changes) == 0 {
		return
	}
	// The calls arrive in any order; the review lists the files in one.
	slices.SortStableFunc(changes, func(a, b tools.ReviewChange) int { return strings.Compare(a.Path, b.Path) })
	req := tools.ReviewRequest{ReviewID: gt.id, Title: reviewTitle(gt.origin.Agent, changes), Agent: gt.origin.Agent, TurnID: gt.origin.Turn, Changes: changes}
	res, err := gt.reviewer.ReviewChanges(gt.ctx, req)
	if err != nil {
		gt.err = err
		return
	}
	gt.answers = map[string]tools.ReviewAnswer{}
	if res != nil {
		for _, a := range res.Changes {
			gt.answers[a.CallID] = a
		}
	}
}

// wait holds the gathering open until its batch is planned or its quiet
// window passes; false when it was cancelled first.
func (gt *gathering) wait(g *gatherer) bool {
	for {
		var fire <-chan time.Time
		stop := func() bool { return false }
		var planned <-chan struct{}
		if gt.batch != nil {
			planned = gt.batch.all
		} else {
			fire, stop = g.after(g.window)
		}
		select {
		case <-gt.joined:
			stop()
			continue
		case <-fire:
		case <-planned:
		case <-gt.ctx.Done():
			stop()
			return false
		}
		stop()
		return true
	}
}

// reviewTitle names the agent and what the review holds.
func reviewTitle(agent string, changes []tools.ReviewChange) string {
	if agent == "" {
		agent = "The agent"
	}
	if len(changes) == 1 {
		return visible.Line(agent + " wants to change " + displayOf(changes[0]))
	}
	return visible.Line(fmt.Sprintf("%s wants to change %d files", agent, len(changes)))
}

// displayOf is the file a change's label names ("Edit src/a.ts": src/a.ts).
func displayOf(c tools.ReviewChange) string {
	if _, file, ok := strings.Cut(c.Label, " "); ok {
		return file
	}
	return c.Path
}

// batchMark counts the calls of a batch not yet planned: a gathering of
// the batch's changes closes when none is left. A call is planned when its
// change joined a review, when it passed the point where it would have
// (it runs without one, or ended), or when it waits for another call
// (which may be the one in review).
type batchMark struct {
	mu      sync.Mutex
	pending int
	all     chan struct{}
}

func newBatchMark(n int) *batchMark {
	b := &batchMark{pending: n, all: make(chan struct{})}
	if n == 0 {
		close(b.all)
	}
	return b
}

func (b *batchMark) planned() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pending--
	if b.pending == 0 {
		close(b.all)
	}
}

// callMark is one call's place in its batch; planned counts it once.
type callMark struct {
	batch *batchMark
	once  sync.Once
}

type callMarkKey struct{}

// withBatch returns ctx of one call of batch.
func withBatch(ctx context.Context, b *batchMark) context.Context {
	return context.WithValue(ctx, callMarkKey{}, &callMark{batch: b})
}

// batchOf is the batch of ctx's call, nil outside a batch.
func batchOf(ctx context.Context) *batchMark {
	if m, ok := ctx.Value(callMarkKey{}).(*callMark); ok {
		return m.batch
	}
	return nil
}

// settle counts ctx's call of a batch as planned (once; nothing outside a
// batch).
func settle(ctx context.Context) {
	if m, ok := ctx.Value(callMarkKey{}).(*callMark); ok {
		m.once.Do(m.batch.planned)
	}
}

// reviewer is the host's review of a turn's changes for c, with c's
// proposal: nil when the editor does not review changes as one or c's
// plan has no proposal to show.
func reviewer(c *callState) (tools.ChangeReviewer, tools.Proposal) {
	r, ok := c.host.(tools.ChangeReviewer)
	if !ok || !r.CanReviewChanges() || c.plan == nil || !c.prepared {
		return nil, tools.Proposal{}
	}
	pr, ok := c.plan.(tools.Proposer)
	if !ok {
		return nil, tools.Proposal{}
	}
	prop, ok := pr.Proposal()
	if !ok {
		return nil, tools.Proposal{}
	}
	return r, prop
}

// reviewTurn has c's change reviewed with the other changes of its turn.
// It returns a result when the call must not run; otherwise the call runs
// with what the user accepted (c.accepted) and c.reviewNote tells the
// model how the user changed the proposal.
func (p *Pipeline) reviewTurn(ctx context.Context, c *callState, r tools.ChangeReviewer, prop tools.Proposal) (*tools.Result, error) {
	name := c.tool.Name()
	change := tools.ReviewChange{CallID: c.req.CallID, ToolName: name, Path: prop.Path, Label: visible.Line(prop.Label), Risk: c.risk, NewText: string(prop.New)}
	if prop.Old != nil {
		old := string(prop.Old)
		change.OldText = &old
	}
	ans, err := p.reviews.join(ctx, r, change)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, ctxErr
	}
	if err != nil {
		p.Log.Warn("review of changes failed", "tool", name, "err", err)
		return tools.ErrorResult("the review of this change could not be shown (%v), so %s did not run. Tell the user; retrying may help.", err, name), nil
	}
	return p.applyAnswer(c, prop, ans)
}

// applyAnswer reads the user's answer on c's change (see reviewTurn).
func (p *Pipeline) applyAnswer(c *callState, prop tools.Proposal, ans tools.ReviewAnswer) (*tools.Result, error) {
	name, what := c.tool.Name(), prop.Label
	switch ans.Decision {
	case tools.ReviewAccept:
	case "":
		return tools.ErrorResult("the user closed the review without accepting your change (%s), so it was not made. Ask the user how to proceed.", what), nil
	case tools.ReviewReject:
		if said := strings.TrimSpace(ans.Message); said != "" {
			return tools.ErrorResult("The user rejected your change (%s) and said: %s\n\n(%s did not run. Do not retry the same call; follow the user's words.)", what, said, name), nil
		}
		return tools.ErrorResult("The user rejected your change (%s) in the review, so %s did not run. Do not retry the same call; ask the user what they want instead.", what, name), nil
	default:
		return tools.ErrorResult("the editor answered %q on your change (%s), which is not accept or reject, so it was not made. Ask the user how to proceed.", ans.Decision, what), nil
	}
	accepted := prop.New
	if ans.Text != nil {
		accepted = []byte(*ans.Text)
	}
	if prop.Old != nil && string(accepted) == string(prop.Old) {
		return tools.ErrorResult("The user rejected every part of your change (%s) in the review, so the file was left as it was. Do not retry the same call; ask the user what they want instead.", what), nil
	}
	c.accepted = accepted
	c.reviewEdits = false
	if string(accepted) != string(prop.New) {
		c.reviewNote = modifiedNote(prop, accepted, ans.Hunks)
	}
	return nil, nil
}

// modifiedNote tells the model how what landed differs from its proposal.
func modifiedNote(prop tools.Proposal, accepted []byte, hunks *tools.HunkCounts) string {
	var b strings.Builder
	b.WriteString("The user accepted your change with modifications")
	if hunks != nil && hunks.Rejected > 0 {
		fmt.Fprintf(&b, ": %d of %d hunks rejected", hunks.Rejected, hunks.Accepted+hunks.Rejected)
	}
	diff, total := udiff.RenderCut(prop.Label+" (your proposal)", prop.Label+" (as written)", udiff.Hunks(string(prop.New), string(accepted)), maxReviewNoteDiff)
	b.WriteString("; the file now differs from your proposal as follows:\n")
	b.WriteString(diff)
	if total > len(diff) {
		fmt.Fprintf(&b, "[diff cut at %d of %d bytes: Read the file for the rest]\n", len(diff), total)
	}
	b.WriteString("Continue from the file's real content.")
	return b.String()
}
