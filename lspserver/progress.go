package lspserver

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/toolhost/toolhost/internal/visible"
	"github.com/toolhost/toolhost/tools"
)

// reportInterval is the least time between two progress reports of a call.
const reportInterval = 200 * time.Millisecond

// BeginProgress creates a work-done progress in the editor
// (window/workDoneProgress/create, then $/progress begin) when the client
// supports it. The editor's cancel button calls cancel, or ends the whole
// request when cancel is nil.
func (h *editorHost) BeginProgress(ctx context.Context, title string, cancel func()) tools.ProgressEnder {
	s := h.srv
	if !s.capabilities().Window.WorkDoneProgress {
		return tools.NoProgress{}
	}
	if cancel == nil {
		cancel = h.cancelCall
	}
	s.progressMu.Lock()
	s.callSeq++
	token := fmt.Sprintf("toolhost/call/%d", s.callSeq)
	s.progressMu.Unlock()
	if err := s.callClient(ctx, "window/workDoneProgress/create", map[string]string{"token": token}, nil); err != nil {
		s.opts.Log.Debug("no progress for a call: the client refused to create it", "err", err)
		return tools.NoProgress{}
	}
	s.progressMu.Lock()
	s.progress[token] = cancel
	s.progressMu.Unlock()
	p := &workDoneProgress{srv: s, token: token, start: time.Now()}
	p.limiter = newReportLimiter(reportInterval, p.sendReport, time.Now, realAfterFunc)
	_ = s.notify("$/progress", progressParams{Token: token, Value: progressValue{Kind: "begin", Title: visible.Line(title), Cancellable: true}})
	return p
}

// cancelProgress handles window/workDoneProgress/cancel.
func (s *server) cancelProgress(token string) {
	s.progressMu.Lock()
	cancel := s.progress[token]
	s.progressMu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// progressParams are $/progress params of a work-done progress. The token
// is always a string here; protocol.ProgressToken marshals wrongly by value.
type progressParams struct {
	Token string        `json:"token"`
	Value progressValue `json:"value"`
}

type progressValue struct {
	Kind        string `json:"kind"`
	Title       string `json:"title,omitempty"`
	Cancellable bool   `json:"cancellable,omitempty"`
	Message     string `json:"message,omitempty"`
}

// workDoneProgress is one call's progress in the editor.
type workDoneProgress struct {
	srv     *server
	token   string
	start   time.Time
	limiter *reportLimiter
	endOnce sync.Once
}

// Report sends a report, at most one per reportInterval; the latest message
// of a burst is sent when the interval ends.
func (p *workDoneProgress) Report(message string) { p.limiter.Report(message) }

// sendReport keeps the message's line breaks: a report is the last lines
// of a command's output, and an editor that shows one line picks the last
// (escaped, they read as a literal "\n" in both editors). Other invisible
// characters are still escaped; the title and the end stay one line.
func (p *workDoneProgress) sendReport(message string) {
	_ = p.srv.notify("$/progress", progressParams{Token: p.token, Value: progressValue{Kind: "report", Message: visible.Text(message)}})
}

// End flushes a pending report and ends the progress with message, which
// says how it ended and how long it took (the pipeline writes it); an empty
// message becomes "done in" the elapsed time.
func (p *workDoneProgress) End(message string) {
	p.endOnce.Do(func() {
		p.limiter.Stop()
		if message == "" {
			message = "done in " + time.Since(p.start).Round(time.Millisecond).String()
		}
		p.srv.progressMu.Lock()
		delete(p.srv.progress, p.token)
		p.srv.progressMu.Unlock()
		_ = p.srv.notify("$/progress", progressParams{Token: p.token, Value: progressValue{Kind: "end", Message: visible.Line(message)}})
	})
}

// reportLimiter passes at most one message per interval to send; a message
// that arrives too early is held, replaced by later ones, and sent when the
// interval ends or at Stop, so the last one is never lost.
type reportLimiter struct {
	interval  time.Duration
	send      func(string)
	now       func() time.Time
	afterFunc func(time.Duration, func()) stopper

	// mu is held while sending so reports go out in order.
	mu sync.Mutex
	// last is when the last message was sent.
	last time.Time
	// pending is the held message, if any.
	pending *string
	// timer sends pending when the interval ends.
	timer   stopper
	stopped bool
}

func newReportLimiter(interval time.Duration, send func(string), now func() time.Time, afterFunc func(time.Duration, func()) stopper) *reportLimiter {
	return &reportLimiter{interval: interval, send: send, now: now, afterFunc: afterFunc}
}

// Report sends message now or holds it for later.
func (l *reportLimiter) Report(message string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return
	}
	now := l.now()
	if l.timer == nil && (l.last.IsZero() || now.Sub(l.last) >= l.interval) {
		l.last = now
		l.send(message)
		return
	}
	l.pending = &message
	if l.timer == nil {
		l.timer = l.afterFunc(l.interval-now.Sub(l.last), l.flush)
	}
}

// flush sends the held message when the interval ends.
func (l *reportLimiter) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.timer = nil
	if l.stopped || l.pending == nil {
		return
	}
	l.last = l.now()
	l.send(*l.pending)
	l.pending = nil
}

// Stop sends a held message and stops the limiter.
func (l *reportLimiter) Stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return
	}
	l.stopped = true
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	if l.pending != nil {
		l.send(*l.pending)
		l.pending = nil
	}
}

// stopper is a pending timer.
type stopper interface{ Stop() bool }

func realAfterFunc(d time.Duration, f func()) stopper { return time.AfterFunc(d, f) }
