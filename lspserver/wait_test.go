package lspserver

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
)

// fatalRecorder is a testing.TB whose Fatal and Fatalf record the message
// and end the goroutine, as the real ones do, without failing the test.
type fatalRecorder struct {
	testing.TB
	fatal string
}

func (r *fatalRecorder) Helper() {}
func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (r *fatalRecorder) Fatal(args ...any) { r.Fatalf("%s", fmt.Sprint(args...)) }

// A test client's waits end at the test's deadline with a failure naming
// what was awaited and the last message seen: a server that answers
// nothing, or reads nothing, fails the test instead of hanging it. The
// deadline here has passed already, so no wait depends on timing.
func TestClientWaitsEndAtTheDeadline(t *testing.T) {
	tests := []struct {
		name string
		wait func(c *testClient)
		want string
	}{
		{"a reply", func(c *testClient) { c.nextFor("the reply to toolhost/callTool") }, "gave up waiting for the reply to toolhost/callTool"},
		{"the next message", func(c *testClient) { c.next() }, "gave up waiting for the server's next message"},
		{"the trust question settled", func(c *testClient) {
			(&trustEditor{t: c.t.(*fatalRecorder).TB.(*testing.T), c: c}).awaitTrustDecision()
		}, "gave up waiting for toolhost/trustChanged"},
		{"Serve's end", func(c *testClient) { c.awaitServed() }, "gave up waiting for Serve to return"},
		{"a write the server does not read", func(c *testClient) { c.notify("exit", nil) }, "the server read nothing more"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &fatalRecorder{TB: t}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			r, w := io.Pipe()
			_ = r.CloseWithError(errServerNotReading) // what the deadline does to the client's writes
			c := &testClient{t: rec, ctx: ctx, w: w, msgs: make(chan map[string]any), served: make(chan error),
				last: map[string]any{"method": "window/logMessage"}}
			done := make(chan struct{})
			go func() {
				defer close(done)
				tt.wait(c)
			}()
			<-done
			if !strings.Contains(rec.fatal, tt.want) {
				t.Errorf("the wait failed with %q, want %q", rec.fatal, tt.want)
			}
			if strings.HasPrefix(tt.want, "gave up") && !strings.Contains(rec.fatal, "window/logMessage") {
				t.Errorf("the failure %q does not show the last message seen", rec.fatal)
			}
		})
	}
}
