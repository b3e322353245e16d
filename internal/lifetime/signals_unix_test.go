//go:build !windows

package lifetime

import (
	"syscall"
	"testing"
	"time"
)

// TestHandleSignalsStopsOnATerminationSignal: once a command could start
// (awaitSignals returned), SIGTERM and SIGHUP call stop instead of ending
// the process, and release ends the handling.
func TestHandleSignalsStopsOnATerminationSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			stopped := make(chan struct{})
			release := HandleSignals(func() { close(stopped) }, false)
			t.Cleanup(func() { signalsSet.Store(nil) })
			awaitSignals()
			if err := syscall.Kill(syscall.Getpid(), sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-stopped:
			case <-time.After(time.Minute):
				t.Fatalf("%v did not call stop within a minute", sig)
			}
			release()
		})
	}
}

// TestHandleSignalsReleasedWithoutASignal: release returns once the
// handling ended, and stop was not called.
func TestHandleSignalsReleasedWithoutASignal(t *testing.T) {
	release := HandleSignals(func() { t.Error("stop called without a signal") }, true)
	t.Cleanup(func() { signalsSet.Store(nil) })
	awaitSignals()
	release()
}
