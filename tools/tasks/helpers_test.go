package tasks

import (
	"context"
	"sync"
)

// recorder collects notifications.
type recorder struct {
	mu   sync.Mutex
	sent []TaskChanged
}

func (r *recorder) notify(_ context.Context, method string, params any) error {
	if method != MethodTaskChanged {
		return nil
	}
	r.mu.Lock()
	r.sent = append(r.sent, params.(TaskChanged))
	r.mu.Unlock()
	return nil
}

func (r *recorder) all() []TaskChanged {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]TaskChanged(nil), r.sent...)
}

// bash returns a Spec running script with bash.
func bash(script string) Spec {
	return Spec{Kind: "bash", Command: script, Name: "bash", Args: []string{"-c", script}}
}
