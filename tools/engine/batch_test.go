package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/toolhost/toolhost/tools"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// guard bounds a test that would otherwise hang when the scheduler is
// wrong; reaching it is a failure, never a measurement.
const guard = 30 * time.Second

func requests(names ...string) []Request {
	var reqs []Request
	for i, n := range names {
		reqs = append(reqs, Request{CallID: strconv.Itoa(i), Name: n, Input: json.RawMessage(`{}`)})
	}
	return reqs
}

func TestBatchReadsRunConcurrently(t *testing.T) {
	const n = 3
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	// Every read waits inside Execute until all n are inside: the batch can
	// only finish if they run at the same time.
	var arrived sync.WaitGroup
	arrived.Add(n)
	all := make(chan struct{})
	go func() { arrived.Wait(); close(all) }()
	read := &accessTool{fakeTool: &fakeTool{name: "Read", run: func(ctx context.Context, call *tools.Call) (*tools.Result, error) {
		arrived.Done()
		select {
		case <-all:
			return tools.TextResult("read by " + call.ID), nil
		case <-ctx.Done():
			return tools.ErrorResult("the other reads never ran alongside this one"), nil
		}
	}}, access: pathAccess(false)}
	reg := tools.NewRegistry()
	reg.Register(tools.CategoryCore, read)
	p := NewPipeline(reg, nil)

	var reqs []Request
	for i := range n {
		reqs = append(reqs, Request{CallID: fmt.Sprintf("id-%d", i), Name: "Read", Input: json.RawMessage(`{"path":"/same/file"}`)})
	}
	got := p.CallBatch(ctx, nil, reqs)
	for i, resp := range got {
		want := fmt.Sprintf("id-%d", i)
		if resp.CallID != want || resp.IsError || resp.Text() != "read by "+want {
			t.Errorf("result %d = %s %q (isError %v), want %s read by itself", i, resp.CallID, resp.Text(), resp.IsError, want)
		}
	}
}

// eventLog records the order in which calls start and end.
type eventLog struct {
	mu     sync.Mutex
	events []string
}

func (l *eventLog) add(e string) {
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
}

func (l *eventLog) index(e string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Index(l.events, e)
}

func TestBatchConflictingCallsRunInOrder(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	log := &eventLog{}
	// The scheduler reports each call that waits for earlier ones; the first
	// write holds until calls 1 and 2 are known to be waiting for it, so a
	// scheduler that let them run alongside it would log their start first.
	waitingFor := map[int]chan struct{}{1: make(chan struct{}), 2: make(chan struct{})}
	run := func(ctx context.Context, call *tools.Call) (*tools.Result, error) {
		log.add("start " + call.ID)
		defer log.add("end " + call.ID)
		if call.ID == "0" {
			for _, ch := range waitingFor {
				select {
				case <-ch:
				case <-ctx.Done():
					return tools.ErrorResult("the later calls never waited"), nil
				}
			}
		}
		return tools.TextResult("done " + call.ID), nil
	}
	reg := tools.NewRegistry()
	reg.Register(tools.CategoryCore,
		&accessTool{fakeTool: &fakeTool{name: "Write", side: tools.SideEffectMutating, run: run}, access: pathAccess(true)},
		&accessTool{fakeTool: &fakeTool{name: "Read", run: run}, access: pathAccess(false)},
	)
	p := NewPipeline(reg, nil)
	var waits sync.Map
	p.waiting = func(call int, on []int) {
		waits.Store(call, on)
		if ch, ok := waitingFor[call]; ok {
			close(ch)
		}
	}

	reqs := []Request{
		{CallID: "0", Name: "Write", Input: json.RawMessage(`{"path":"/w/a.go"}`)},
		{CallID: "1", Name: "Write", Input: json.RawMessage(`{"path":"/w/a.go"}`)},
		{CallID: "2", Name: "Read", Input: json.RawMessage(`{"path":"/w/a.go"}`)},
	}
	got := p.CallBatch(ctx, nil, reqs)
	for i, resp := range got {
		if resp.CallID != reqs[i].CallID || resp.Text() != "done "+reqs[i].CallID {
			t.Errorf("result %d = %s %q", i, resp.CallID, resp.Text())
		}
	}
	order := []string{"start 0", "end 0", "start 1", "end 1", "start 2", "end 2"}
	for i := 1; i < len(order); i++ {
		if log.index(order[i-1]) >= log.index(order[i]) {
			t.Errorf("%q did not come before %q: %v", order[i-1], order[i], log.events)
		}
	}
	if on, _ := waits.Load(2); !reflect.DeepEqual(on, []int{0, 1}) {
		t.Errorf("call 2 waited on %v, want [0 1]", on)
	}
}

func TestBatchPlan(t *testing.T) {
	root := t.TempDir()
	reg := tools.NewRegistry()
	reg.Register(tools.CategoryCore,
		&accessTool{fakeTool: &fakeTool{name: "Read"}, access: pathAccess(false)},
		&accessTool{fakeTool: &fakeTool{name: "Write", side: tools.SideEffectMutating}, access: pathAccess(true)},
		&accessTool{fakeTool: &fakeTool{name: "Bash", side: tools.SideEffectNetwork}, access: func(json.RawMessage) tools.Access {
			return tools.Access{Command: "make", Exclusive: []string{"shell"}}
		}},
		// No Access and no side effect: conflicts with nothing.
		&fakeTool{name: "GetTime"},
		// No Access and a side effect: may touch anything.
		&fakeTool{name: "mcp__db__query", side: tools.SideEffectNetwork},
	)
	p := NewPipeline(reg, nil, WithPathResolver(func(s string) (string, error) {
		if filepath.IsAbs(s) {
			return filepath.Clean(s), nil
		}
		return filepath.Join(root, s), nil
	}))

	batch := []struct {
		name, input string
		deps        []int
	}{
		/* 0 */ {"Read", `{"path":"a.txt"}`, nil},
		/* 1 */ {"Read", `{"path":"` + filepath.Join(root, "a.txt") + `"}`, nil},
		/* 2 */ {"Write", `{"path":"a.txt"}`, []int{0, 1}},
		/* 3 */ {"Read", `{"path":"b.txt"}`, nil},
		/* 4 */ {"Bash", `{}`, nil},
		/* 5 */ {"Bash", `{}`, []int{4}},
		/* 6 */ {"Read", `{"path":"."}`, []int{2}}, // a search of the root sees the write below it
		/* 7 */ {"Write", `{"path":"sub/c.txt"}`, []int{6}},
		/* 8 */ {"GetTime", `{}`, nil},
		/* 9 */ {"mcp__db__query", `{}`, []int{0, 1, 2, 3, 4, 5, 6, 7, 8}},
		/* 10 */ {"Read", `{"path":"a.txt"}`, []int{2, 9}},
		/* 11 */ {"NoSuchTool", `{}`, []int{9}},
		/* 12 */ {"Write", `{"path":"b.txt"}`, []int{3, 6, 9}},
	}
	var claims []claim
	var want [][]int
	for _, c := range batch {
		claims = append(claims, p.claim(Request{Name: c.name, Input: json.RawMessage(c.input)}))
		want = append(want, c.deps)
	}
	got := plan(claims)
	for i := range batch {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("call %d (%s %s) waits on %v, want %v", i, batch[i].name, batch[i].input, got[i], want[i])
		}
	}
}

func TestBatchCancelFillsInterrupted(t *testing.T) {
	started := make(chan string, 1)
	blocking := blockingTool("Hold", started)
	reg := tools.NewRegistry()
	reg.Register(tools.CategoryCore, &accessTool{fakeTool: blocking, access: func(json.RawMessage) tools.Access {
		return tools.Access{Exclusive: []string{"shell"}}
	}})
	p := NewPipeline(reg, nil)
	secondWaits := make(chan struct{})
	p.waiting = func(call int, _ []int) {
		if call == 1 {
			close(secondWaits)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan []*Response)
	go func() { done <- p.CallBatch(ctx, nil, requests("Hold", "Hold")) }()
	<-started
	<-secondWaits
	cancel()
	got := <-done

	want := []string{interruptedWhileRun, interruptedBeforeRun}
	for i, resp := range got {
		if resp.CallID != strconv.Itoa(i) || !resp.IsError || resp.Text() != want[i] {
			t.Errorf("result %d = %s %q (isError %v), want %q", i, resp.CallID, resp.Text(), resp.IsError, want[i])
		}
	}
	if n := blocking.calls.Load(); n != 1 {
		t.Errorf("the tool ran %d times, want once", n)
	}

	// A batch that arrives already cancelled runs nothing.
	p.waiting = nil
	got = p.CallBatch(ctx, nil, requests("Hold", "Hold", "Missing"))
	for i, resp := range got {
		if resp.Text() != interruptedBeforeRun {
			t.Errorf("already cancelled, result %d = %q", i, resp.Text())
		}
	}
}

// BenchmarkCallBatchOfSlowCalls runs batches of N independent calls that
// each wait 20 ms. The x_serial metric is the batch's time over N×20 ms,
// what running them one after another would cost: about 1/N when the
// batch costs about its slowest call.
func BenchmarkCallBatchOfSlowCalls(b *testing.B) {
	const each = 20 * time.Millisecond
	reg := tools.NewRegistry()
	reg.Register(tools.CategoryCore, &accessTool{fakeTool: &fakeTool{name: "Slow", run: func(ctx context.Context, call *tools.Call) (*tools.Result, error) {
		timer := time.NewTimer(each)
		defer timer.Stop()
		select {
		case <-timer.C:
			return tools.TextResult("ok"), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}}, access: pathAccess(false)})
	p := NewPipeline(reg, nil)
	for _, n := range []int{1, 4, DefaultMaxParallel} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			var reqs []Request
			for i := range n {
				reqs = append(reqs, Request{CallID: strconv.Itoa(i), Name: "Slow", Input: json.RawMessage(fmt.Sprintf(`{"path":"/f%d"}`, i))})
			}
			start := time.Now()
			for b.Loop() {
				for _, r := range p.CallBatch(context.Background(), nil, reqs) {
					if r.IsError {
						b.Fatal(r.Text())
					}
				}
			}
			perOp := time.Since(start) / time.Duration(b.N)
			b.ReportMetric(float64(perOp)/float64(time.Duration(n)*each), "x_serial")
		})
	}
}
