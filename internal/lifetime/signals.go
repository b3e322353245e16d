package lifetime

import (
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// signalsSet is closed once HandleSignals' handlers are in place; nil
// until HandleSignals is called (tests, and programs that handle no
// signals, start commands without waiting).
var signalsSet atomic.Pointer[chan struct{}]

// HandleSignals calls stop on SIGINT, SIGTERM or SIGHUP (a closed
// terminal), so that the program ends cleanly, with its processes; with
// ignorePipe, a write to a pipe whose reader is gone fails with EPIPE
// instead of killing the program (a server's client that went away). It
// returns release, which stops the handling and waits for its goroutine.
//
// The handlers are set up on a goroutine of their own, not before
// HandleSignals returns: each signal the runtime is told about is a round
// trip with its signal thread, and the first starts that thread; together
// about half a millisecond of a server's start on these machines, which
// its first reply does not need. Until they are in place a signal has its
// default action and ends the process outright; no command can have
// started then, since every command waits for them (ensureWatchdog), and
// the watchdog ends the processes of a server ended any way.
func HandleSignals(stop func(), ignorePipe bool) (release func()) {
	set := make(chan struct{})
	signalsSet.Store(&set)
	signals := make(chan os.Signal, 1)
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		signal.Notify(signals, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
		if ignorePipe {
			signal.Ignore(syscall.SIGPIPE)
		}
		close(set)
		select {
		case <-signals:
			stop()
		case <-done:
		}
		signal.Stop(signals)
	}()
	return func() {
		close(done)
		<-ended
	}
}

// awaitSignals waits until HandleSignals' handlers are in place, when it
// was called.
func awaitSignals() {
	if set := signalsSet.Load(); set != nil {
		<-*set
	}
}
