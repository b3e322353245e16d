package engine

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

// changeTool is a Planner whose calls propose {"path","old","new"}: the
// pipeline's gathering is under test, not a file tool. Execute answers
// what it was given to write.
type changeTool struct{ fakeTool }

type changePlan struct {
	Path string  `json:"path"`
	Old  *string `json:"old"`
	New  string  `json:"new"`
}

func (*changeTool) Decode(input json.RawMessage) (tools.Plan, *tools.Result) {
	var p changePlan
	if err := json.Unmarshal(input, &p); err != nil {
		return nil, tools.ErrorResult("bad input: %v", err)
	}
	return &p, nil
}

func (p *changePlan) Access() tools.Access                              { return tools.Access{WritePaths: []string{p.Path}} }
func (p *changePlan) Prepare(context.Context, tools.Host) *tools.Result { return nil }
func (p *changePlan) Preview(context.Context) *tools.Preview            { return nil }
func (p *changePlan) Proposal() (tools.Proposal, bool) {
	pr := tools.Proposal{Path: p.Path, Label: "Change " + p.Path, New: []byte(p.New)}
	if p.Old != nil {
		pr.Old = []byte(*p.Old)
	}
	return pr, true
}

func newChangeTool() *changeTool {
	t := &changeTool{fakeTool{name: "Change", side: tools.SideEffectMutating}}
	t.run = func(_ context.Context, call *tools.Call) (*tools.Result, error) {
		if call.Accepted == nil {
			return tools.TextResult("wrote the proposal unreviewed"), nil
		}
		return tools.TextResult("wrote " + string(call.Accepted)), nil
	}
	return t
}

// askChecker asks for every call; a Check (a per-file prompt) is counted,
// for the calls that joined a review must not prompt.
type askChecker struct {
	review bool // the edit review mode: allow, reviewed in the editor
	mu     sync.Mutex
	n      int
}

func (c *askChecker) Decide(tools.Host, tools.PermissionCall) tools.PermissionDecision {
	if c.review {
		return tools.PermissionDecision{Verdict: tools.VerdictAllow, Review: true}
	}
	return tools.PermissionDecision{Verdict: tools.VerdictAsk, Reason: "no rule allows it"}
}

func (c *askChecker) Check(context.Context, tools.Host, tools.PermissionCall) (tools.PermissionOutcome, error) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	return tools.PermissionOutcome{Allow: true}, nil
}

// reviewingHost is an editor that reviews changes as one: each review is
// handed to the test (reviews), which answers on its reply channel.
type reviewingHost struct {
	tools.NoHost
	reviews chan shownReview
}

type shownReview struct {
	req   tools.ReviewRequest
	ctx   context.Context
	reply chan *tools.ReviewResponse
}

func (h *reviewingHost) CanReviewChanges() bool { return true }
func (h *reviewingHost) ReviewChanges(ctx context.Context, req tools.ReviewRequest) (*tools.ReviewResponse, error) {
	r := shownReview{req: req, ctx: ctx, reply: make(chan *tools.ReviewResponse, 1)}
	select {
	case h.reviews <- r:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case res := <-r.reply:
		return res, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func reviewPipeline(t *testing.T, checker tools.PermissionChecker) (*Pipeline, *reviewingHost) {
	t.Helper()
	reg := tools.NewRegistry()
	reg.Register(tools.CategoryCore, newChangeTool())
	p := NewPipeline(reg, nil, WithPermissions(checker))
	// A batch needs no window: a test that reaches the timer fails.
	p.reviews.after = func(time.Duration) (<-chan time.Time, func() bool) {
		t.Error("the quiet window was started for a batch")
		return nil, func() bool { return false }
	}
	return p, &reviewingHost{reviews: make(chan shownReview)}
}

func changeReq(id, path string, old *string, new string) Request {
	in, _ := json.Marshal(changePlan{Path: path, Old: old, New: new})
	return Request{CallID: id, Name: "Change", Input: in}
}

func strp(s string) *string { return &s }

// nextReview waits for the review the editor is shown.
func nextReview(t *testing.T, h *reviewingHost) shownReview {
	t.Helper()
	select {
	case r := <-h.reviews:
		return r
	case <-time.After(guard):
		t.Fatal("no review was shown")
	}
	return shownReview{}
}

func TestBatchIsReviewedAsOne(t *testing.T) {
	for _, review := range []bool{false, true} {
		name := map[bool]string{false: "ask", true: "reviewInEditor"}[review]
		t.Run(name, func(t *testing.T) {
			checker := &askChecker{review: review}
			p, host := reviewPipeline(t, checker)
			reqs := []Request{
				changeReq("a", "/w/a.go", strp("a1\na2\n"), "A1\na2\n"),
				changeReq("b", "/w/b.go", strp("b1\n"), "B1\n"),
				changeReq("c", "/w/c.go", nil, "c1\nc2\nc3\n"),
			}
			ctx := workspace.WithOrigin(context.Background(), workspace.Origin{Turn: "t1", Agent: "Claude Code"})
			var out []*Response
			done := make(chan struct{})
			go func() { defer close(done); out = p.CallBatch(ctx, host, reqs) }()

			r := nextReview(t, host)
			if got := len(r.req.Changes); got != 3 {
				t.Fatalf("one review of %d changes, want 3: %+v", got, r.req.Changes)
			}
			if r.req.TurnID != "t1" || r.req.Agent != "Claude Code" || !strings.Contains(r.req.Title, "Claude Code") || !strings.Contains(r.req.Title, "3 files") {
				t.Errorf("review names turn %q agent %q title %q", r.req.TurnID, r.req.Agent, r.req.Title)
			}
			byID := map[string]tools.ReviewChange{}
			for _, c := range r.req.Changes {
				byID[c.CallID] = c
			}
			if c := byID["c"]; c.OldText != nil || c.NewText != "c1\nc2\nc3\n" || c.Label != "Change /w/c.go" {
				t.Errorf("new file's change = %+v", c)
			}
			if c := byID["a"]; c.OldText == nil || *c.OldText != "a1\na2\n" {
				t.Errorf("a's old text = %v", c.OldText)
			}
			r.reply <- &tools.ReviewResponse{Changes: []tools.ReviewAnswer{
				{CallID: "a", Decision: "accept"},
				{CallID: "b", Decision: "reject", Message: "keep b as it is"},
				{CallID: "c", Decision: "accept", Text: strp("c1\nmine\n"), Hunks: &tools.HunkCounts{Accepted: 1, Rejected: 1}},
			}}
			<-done
			want := []struct{ has, not string }{
				{"wrote A1\na2\n", "modifications"},
				{"keep b as it is", "wrote"},
				{"1 of 2 hunks rejected", ""},
			}
			for i, w := range want {
				text := out[i].Text()
				if !strings.Contains(text, w.has) || (w.not != "" && strings.Contains(text, w.not)) {
					t.Errorf("result %d = %q, want it to say %q and not %q", i, text, w.has, w.not)
				}
			}
			if c := out[2].Text(); !strings.Contains(c, "wrote c1\nmine\n") || !strings.Contains(c, "-c2\n") || !strings.Contains(c, "+mine\n") {
				t.Errorf("the modified change's result %q lacks what was written or the diff from the proposal", c)
			}
			if !out[1].IsError {
				t.Error("the rejected change is not an error result")
			}
			if checker.n != 0 {
				t.Errorf("%d per-file prompts besides the review", checker.n)
			}
		})
	}
}

func TestReviewAnswers(t *testing.T) {
	cases := []struct {
		name   string
		answer *tools.ReviewResponse
		want   string
		ran    bool
	}{
		{"dismissed", nil, "closed the review without accepting", false},
		{"missing from the answer", &tools.ReviewResponse{}, "closed the review without accepting", false},
		{"unknown decision", &tools.ReviewResponse{Changes: []tools.ReviewAnswer{{CallID: "x", Decision: "maybe"}}}, `answered "maybe"`, false},
		{"every hunk reverted", &tools.ReviewResponse{Changes: []tools.ReviewAnswer{{CallID: "x", Decision: "accept", Text: strp("old\n")}}}, "rejected every part", false},
		{"plain reject", &tools.ReviewResponse{Changes: []tools.ReviewAnswer{{CallID: "x", Decision: "reject"}}}, "rejected your change (Change /w/x)", false},
		{"accepted as proposed", &tools.ReviewResponse{Changes: []tools.ReviewAnswer{{CallID: "x", Decision: "accept"}}}, "wrote new\n", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, host := reviewPipeline(t, &askChecker{})
			done := make(chan []*Response)
			go func() {
				done <- p.CallBatch(context.Background(), host, []Request{changeReq("x", "/w/x", strp("old\n"), "new\n")})
			}()
			r := nextReview(t, host)
			if len(r.req.Changes) != 1 {
				t.Fatalf("a lone change is a review of %d", len(r.req.Changes))
			}
			r.reply <- tc.answer
			res := (<-done)[0]
			if !strings.Contains(res.Text(), tc.want) || res.IsError == tc.ran {
				t.Errorf("result %q (error %v), want it to say %q", res.Text(), res.IsError, tc.want)
			}
		})
	}
}

// Parallel single calls of one agent (an attached MCP agent's tools/call)
// join one review within the quiet window; the window's timer is the
// test's.
func TestParallelCallsJoinWithinTheWindow(t *testing.T) {
	p, host := reviewPipeline(t, &askChecker{})
	fire := make(chan time.Time, 1)
	p.reviews.after = func(d time.Duration) (<-chan time.Time, func() bool) {
		if d != DefaultReviewWindow {
			t.Errorf("window %v", d)
		}
		return fire, func() bool { return true }
	}
	joined := make(chan struct{}, 3)
	p.reviews.joinedHook = func() { joined <- struct{}{} }
	ctx := workspace.WithOrigin(context.Background(), workspace.Origin{Agent: "Claude Code"})
	results := make(chan *Response, 3)
	for _, id := range []string{"1", "2", "3"} {
		go func() {
			resp, _ := p.Call(ctx, host, changeReq(id, "/w/"+id, strp(""), "x"+id))
			results <- resp
		}()
	}
	for range 3 {
		<-joined
	}
	fire <- time.Now()
	r := nextReview(t, host)
	if len(r.req.Changes) != 3 {
		t.Fatalf("review of %d changes, want the 3 parallel calls", len(r.req.Changes))
	}

	// A change of the same agent while the review is on screen forms the
	// next review.
	late := make(chan *Response, 1)
	go func() {
		resp, _ := p.Call(ctx, host, changeReq("4", "/w/4", strp(""), "x4"))
		late <- resp
	}()
	<-joined
	fire <- time.Now()
	r2 := nextReview(t, host)
	if len(r2.req.Changes) != 1 || r2.req.Changes[0].CallID != "4" || r2.req.ReviewID == r.req.ReviewID {
		t.Errorf("the later change's review = %+v (first %s)", r2.req, r.req.ReviewID)
	}
	r2.reply <- &tools.ReviewResponse{Changes: []tools.ReviewAnswer{{CallID: "4", Decision: "accept"}}}
	if res := <-late; !strings.Contains(res.Text(), "wrote x4") {
		t.Errorf("late change = %q", res.Text())
	}
	r.reply <- &tools.ReviewResponse{Changes: []tools.ReviewAnswer{{CallID: "1", Decision: "accept"}, {CallID: "2", Decision: "accept"}, {CallID: "3", Decision: "accept"}}}
	for range 3 {
		if res := <-results; res == nil || !strings.HasPrefix(res.Text(), "wrote x") {
			t.Errorf("parallel change = %+v", res)
		}
	}
}

// Cancelling every call of a review on screen closes it (the request's
// context ends, which sends $/cancelRequest); one call cancelled of two
// leaves it open for the other.
func TestCancelledCallsCloseTheReview(t *testing.T) {
	p, host := reviewPipeline(t, &askChecker{})
	ctxA, cancelA := context.WithCancel(context.Background())
	ctxB, cancelB := context.WithCancel(context.Background())
	defer cancelB()
	b := newBatchMark(2)
	errs := make(chan error, 2)
	for i, ctx := range []context.Context{ctxA, ctxB} {
		go func() {
			_, err := p.Call(withBatch(ctx, b), host, changeReq(string(rune('a'+i)), "/w/f"+string(rune('a'+i)), nil, "x"))
			errs <- err
		}()
	}
	r := nextReview(t, host)
	cancelA()
	if err := <-errs; err == nil {
		t.Error("the cancelled call returned no error")
	}
	if r.ctx.Err() != nil {
		t.Fatal("the review closed while a call still waits for it")
	}
	cancelB()
	<-errs
	<-r.ctx.Done()
}

// Access lets the batch scheduler run changes of different files at once.
func (t *changeTool) Access(input json.RawMessage) tools.Access {
	pl, res := t.Decode(input)
	if res != nil {
		return tools.Access{}
	}
	return pl.Access()
}

// promptHost answers every per-file prompt "allow" at once; autoReviewer
// also reviews changes as one and accepts them at once.
type promptHost struct{ tools.NoHost }

func (promptHost) RequestPermission(context.Context, tools.PermissionRequest) (tools.PermissionResponse, error) {
	return tools.PermissionResponse{Decision: tools.DecisionAllow}, nil
}

type autoReviewer struct{ promptHost }

func (autoReviewer) CanReviewChanges() bool { return true }
func (autoReviewer) ReviewChanges(_ context.Context, req tools.ReviewRequest) (*tools.ReviewResponse, error) {
	res := &tools.ReviewResponse{}
	for _, c := range req.Changes {
		res.Changes = append(res.Changes, tools.ReviewAnswer{CallID: c.CallID, Decision: tools.ReviewAccept})
	}
	return res, nil
}

// The cost a lone reviewed change pays for the gathering, with a user who
// answers at once: the per-file prompt (before), a batch of one (no
// window), and a single call (the quiet window).
func BenchmarkReviewedChange(b *testing.B) {
	reg := tools.NewRegistry()
	reg.Register(tools.CategoryCore, newChangeTool())
	p := NewPipeline(reg, nil, WithPermissions(&askChecker{}))
	req := changeReq("x", "/w/x", strp("old\n"), "new\n")
	cases := []struct {
		name string
		run  func() *Response
	}{
		{"per-file prompt", func() *Response { r, _ := p.Call(context.Background(), promptHost{}, req); return r }},
		{"review, batch of one", func() *Response { return p.CallBatch(context.Background(), autoReviewer{}, []Request{req})[0] }},
		{"review, single call", func() *Response { r, _ := p.Call(context.Background(), autoReviewer{}, req); return r }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if r := c.run(); r == nil || r.IsError {
					b.Fatalf("result %+v", r)
				}
			}
		})
	}
}
