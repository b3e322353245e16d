package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// After a signal, a command that does not finish within the grace ends the
// program; one that finishes in time, or before any signal, does not.
func TestEndAfterGrace(t *testing.T) {
	tests := []struct {
		name     string
		signal   bool
		finishes bool
		wantExit bool
	}{
		{"a signal and a command that stays busy", true, false, true},
		{"a signal and a command that finishes", true, true, false},
		{"no signal, the command finishes", false, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			finished := make(chan struct{})
			exited := make(chan int, 1)
			var stderr bytes.Buffer
			done := make(chan struct{})
			go func() {
				defer close(done)
				endAfterGrace(ctx, finished, 10*time.Millisecond, &stderr, func(code int) { exited <- code })
			}()
			if tt.finishes {
				close(finished)
			}
			if tt.signal {
				cancel()
			}
			<-done
			select {
			case code := <-exited:
				if !tt.wantExit {
					t.Fatalf("ended the program with %d", code)
				}
				if code == 0 || !strings.Contains(stderr.String(), "still busy") {
					t.Errorf("exit %d, stderr %q", code, stderr.String())
				}
			default:
				if tt.wantExit {
					t.Fatal("the program was not ended")
				}
			}
		})
	}
}
