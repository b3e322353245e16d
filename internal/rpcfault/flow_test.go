package rpcfault

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

func id(n int) jsonrpc.ID {
	i, _ := jsonrpc.MakeID(float64(n))
	return i
}

// TestFlowCrossesOffAnsweredRequests: each request asked waits for its
// answer (a request asked twice for two), a Send answering it crosses it
// off, a forgotten one is not waited for, and Drain reports when none is
// left.
func TestFlowCrossesOffAnsweredRequests(t *testing.T) {
	f := NewFlow(io.Discard, func(dst []byte, _ int) (head, tail []byte) { return dst, nil }, nil)
	ctx := context.Background()
	for _, n := range []int{1, 2, 3, 3} {
		f.Asked(id(n))
	}
	steps := []struct {
		do   func()
		left bool
	}{
		{func() { _ = f.SendBody([]byte("a notification")) }, true},
		{func() { _ = f.SendBody([]byte("answers 1 and 2"), id(1), id(2)) }, true},
		{func() { _ = f.SendBody([]byte("answers one 3"), id(3)) }, true},
		{func() { _ = f.SendBody([]byte("answers 9, never asked"), id(9)) }, true},
		{func() { f.Forget(id(3)) }, false},
	}
	for i, st := range steps {
		st.do()
		if none := f.Drain(ctx, 0); none == st.left {
			t.Fatalf("step %d: Drain says none left = %v", i, none)
		}
	}
	f.Close()
	if err := f.SendBody([]byte("late")); !errors.Is(err, ErrClosed) {
		t.Errorf("Send after Close = %v, want ErrClosed", err)
	}
}

// stuckWriter is a client that stopped reading: writes wait for release.
type stuckWriter struct {
	release chan struct{}
	started chan struct{}
}

func (w stuckWriter) Write(p []byte) (int, error) {
	select {
	case w.started <- struct{}{}:
	default:
	}
	<-w.release
	return len(p), nil
}

// TestFlowAdmits: Admit holds only while the cap of unanswered requests is
// reached and a write is stuck, and lets go once the write ends or its
// context does.
func TestFlowAdmits(t *testing.T) {
	w := stuckWriter{release: make(chan struct{}), started: make(chan struct{}, 1)}
	f := NewFlow(w, func(dst []byte, _ int) (head, tail []byte) { return dst, nil }, nil)
	f.Limit = 2
	held := make(chan struct{}, 1)
	f.Held = func() { held <- struct{}{} }
	ctx := context.Background()
	f.Asked(id(1))
	f.Asked(id(2))
	if err := f.Admit(ctx); err != nil {
		t.Fatalf("at the cap with no write under way: %v", err)
	}
	var sends sync.WaitGroup
	sends.Go(func() { _ = f.SendBody([]byte("answer to 1"), id(1)) })
	<-w.started
	f.Asked(id(3)) // two unanswered again, and the write is stuck
	timed, cancel := context.WithTimeout(ctx, time.Millisecond)
	defer cancel()
	if err := f.Admit(timed); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Admit with a stuck write at the cap = %v, want it held until its context ends", err)
	}
	<-held
	admitted := make(chan error, 1)
	go func() { admitted <- f.Admit(ctx) }()
	<-held
	close(w.release)
	if err := <-admitted; err != nil {
		t.Fatal(err)
	}
	sends.Wait()
}

// TestFlowReceivesAndAnswers: a fault is answered in the transport's frame
// and words, a malformed response without an id is not, a request is
// noted; a batch's answers go out together in the batch's order once the
// last is in, and cross off its requests.
func TestFlowReceivesAndAnswers(t *testing.T) {
	var out strings.Builder
	f := NewFlow(&out, func(dst []byte, _ int) (head, tail []byte) { return append(dst, '<'), []byte(">") }, nil)
	word := func(fault *Fault) string { return "bad: " + fault.Reason }
	if msg := f.Receive([]byte(`{"jsonrpc":"2.0","id":7}`), word); msg != nil {
		t.Fatalf("a message without method or result was taken: %#v", msg)
	}
	if msg := f.Receive([]byte(`{"jsonrpc":"2.0","error":{"code":1,"message":"x"}}`), word); msg != nil {
		t.Fatalf("a response without id was taken: %#v", msg)
	}
	if got, want := out.String(), `<{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"bad: a JSON-RPC message needs \"method\" (a request or notification) or \"result\"/\"error\" (a response)"}}>`; got != want {
		t.Fatalf("answered\n%s\nwant\n%s", got, want)
	}
	out.Reset()
	ctx := context.Background()
	if msg := f.Receive([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), word); msg == nil || f.Drain(ctx, 0) {
		t.Fatal("a request was not taken and noted")
	}
	f.Batch([]jsonrpc.ID{id(2), id(3)})
	for _, n := range []int{1, 3} {
		if err := f.Send(&jsonrpc.Response{ID: id(n), Result: json.RawMessage(fmt.Sprint(n))}); err != nil {
			t.Fatal(err)
		}
	}
	if got := out.String(); got != `<{"jsonrpc":"2.0","id":1,"result":1}>` || f.Drain(ctx, 0) {
		t.Fatalf("before the batch's last answer: sent %s", got)
	}
	if err := f.Send(&jsonrpc.Response{ID: id(2), Result: json.RawMessage(`2`)}); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), `<{"jsonrpc":"2.0","id":1,"result":1}><[{"jsonrpc":"2.0","id":2,"result":2},{"jsonrpc":"2.0","id":3,"result":3}]>`; got != want || !f.Drain(ctx, 0) {
		t.Fatalf("sent\n%s\nwant\n%s", got, want)
	}
}

// TestFlowSendsEachMessageWhole: a message is framed around exactly its
// encoding, whether it is small (copied into one write) or past bulkBytes
// (written in parts), and the writes of two messages sent at once do not
// interleave.
func TestFlowSendsEachMessageWhole(t *testing.T) {
	big := json.RawMessage(`"` + strings.Repeat("x", 3*bulkBytes) + `"`)
	tests := []struct {
		name string
		msg  jsonrpc.Message
	}{
		{"a small request", &jsonrpc.Request{ID: id(1), Method: "m", Params: json.RawMessage(`{"a":1}`)}},
		{"a notification without params", &jsonrpc.Request{Method: "n"}},
		{"a request past bulkBytes", &jsonrpc.Request{ID: id(2), Method: "workspace/applyEdit", Params: big}},
		{"a response past bulkBytes", &jsonrpc.Response{ID: id(3), Result: big}},
		{"a response without result", &jsonrpc.Response{ID: id(4)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			f := NewFlow(&out, func(dst []byte, size int) (head, tail []byte) { return fmt.Appendf(dst, "<%d|", size), []byte(">") }, nil)
			var sends sync.WaitGroup
			for range 2 {
				sends.Go(func() {
					if err := f.Send(tt.msg); err != nil {
						t.Error(err)
					}
				})
			}
			sends.Wait()
			body, err := Encode(tt.msg)
			if err != nil {
				t.Fatal(err)
			}
			one := fmt.Sprintf("<%d|%s>", len(body), body)
			if got := out.String(); got != one+one {
				t.Errorf("sent %.200s…, want twice %.200s…", got, one)
			}
		})
	}
}
