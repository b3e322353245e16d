package agent

import (
	"context"
	"io"
	"sync"
)

// Mailbox delivers messages (SendMessage) to a sub-agent of the built-in
// runner while it runs. The runner takes what arrived before each request to
// the model, and asks the mailbox what to do when the model replies without
// calling a tool.
type Mailbox interface {
	// Take returns the messages that arrived since the last Take, each as
	// the text of a user message.
	Take() []string
	// Idle is called with a reply that called no tool. It returns the next
	// messages and true to go on (a team member waits here for them), or
	// false to end the sub-agent with reply as its report. It returns
	// promptly once ctx is done.
	Idle(ctx context.Context, reply string) ([]string, bool)
}

// PostOffice gives named sub-agents a Mailbox that SendMessage reaches by
// name. Open fails when the name is taken; close unregisters the name.
type PostOffice interface {
	Open(name string, out io.Writer) (mb Mailbox, close func(), err error)
}

// nameKey carries the name of the sub-agent whose tool call runs.
type nameKey struct{}

// WithName marks ctx as belonging to the sub-agent name, so the tools it
// calls (SendMessage) know who calls.
func WithName(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, nameKey{}, name)
}

// NameFrom returns the sub-agent name of WithName, or "" for the session's
// own model.
func NameFrom(ctx context.Context) string {
	s, _ := ctx.Value(nameKey{}).(string)
	return s
}

// lazyWriter writes to a writer set later (a task's output, known once the
// task runs); writes before that are dropped.
type lazyWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lazyWriter) set(w io.Writer) {
	l.mu.Lock()
	l.w = w
	l.mu.Unlock()
}

func (l *lazyWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w == nil {
		return len(p), nil
	}
	return l.w.Write(p)
}
