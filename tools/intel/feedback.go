package intel

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

// answerMargin is how much longer than the client's wait the server waits
// for its answer: the bound the user set is the client's, plus the trip.
const answerMargin = 250 * time.Millisecond

// baselineTimeout bounds the request for the diagnostics before an edit.
const baselineTimeout = time.Second

// Feedback adds the editor's diagnostics to the results of edits applied
// through it (edit.diagnostics).
type Feedback struct {
	ws       *workspace.Workspace
	settings func() *settings.Settings
	log      *slog.Logger
}

// NewFeedback returns the edit feedback of a session.
func NewFeedback(ws *workspace.Workspace, get func() *settings.Settings, log *slog.Logger) *Feedback {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Feedback{ws: ws, settings: get, log: log}
}

// mode is edit.diagnostics and its bound.
func (f *Feedback) mode() (string, time.Duration) {
	def := settings.Defaults().Edit
	mode, wait := def.Diagnostics, def.DiagnosticsWaitMs
	if f.settings != nil {
		if s := f.settings(); s != nil {
			if s.Edit.Diagnostics != "" {
				mode = s.Edit.Diagnostics
			}
			if s.Edit.DiagnosticsWaitMs > 0 {
				wait = s.Edit.DiagnosticsWaitMs
			}
		}
	}
	return mode, time.Duration(wait) * time.Millisecond
}

// Wrap returns the host a mutating call runs with and the function that
// adds, to the call's result, the diagnostics of the files its applied
// edits changed. A host that cannot report diagnostics, or the setting
// "off", leaves both as they are.
func (f *Feedback) Wrap(h tools.Host) (tools.Host, func(context.Context, *tools.Result) *tools.Result) {
	li, ok := languageIntel(h)
	mode, wait := f.mode()
	if !ok || !li.CanReportDiagnostics() || !h.CanApplyEdit() || mode == settings.DiagnosticsOff || wait <= 0 {
		return h, nil
	}
	w := &watchedHost{Host: h, li: li, wait: wait, before: map[string]tools.FileDiagnostics{}}
	return w, func(ctx context.Context, res *tools.Result) *tools.Result {
		return f.after(ctx, w, mode, wait, res)
	}
}

// watchedHost is a Host that notes the files of the edits applied through
// it and their diagnostics before each edit.
type watchedHost struct {
	tools.Host
	li tools.LanguageIntel
	// wait is the edit's bound (edit.diagnosticsWaitMs).
	wait time.Duration

	// mu guards uris, before and spent: a tool may apply edits from
	// goroutines.
	mu     sync.Mutex
	uris   []string
	before map[string]tools.FileDiagnostics
	// spent is the time the requests before the edits took: it comes off
	// the wait after them, so that the two together stay within wait.
	spent time.Duration
}

// left is what remains of the bound once the requests before the edits
// took their time.
func (w *watchedHost) left() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.wait - w.spent
}

// ApplyEdit asks for the diagnostics of the edit's files first (no wait),
// then applies it and notes the files when it was applied.
func (w *watchedHost) ApplyEdit(ctx context.Context, params *workspace.ApplyWorkspaceEditParams) (*workspace.ApplyWorkspaceEditResult, error) {
	var uris []string
	for _, c := range params.Edit.DocumentChanges {
		if c.TextDocumentEdit != nil {
			uris = append(uris, c.TextDocumentEdit.TextDocument.URI)
		}
	}
	w.mu.Lock()
	var unseen []string
	for _, u := range uris {
		if _, ok := w.before[u]; !ok {
			unseen = append(unseen, u)
		}
	}
	w.mu.Unlock()
	if left := w.left(); len(unseen) > 0 && left > 0 {
		bctx, cancel := context.WithTimeout(ctx, min(baselineTimeout, left))
		asked := time.Now()
		files, err := w.li.Diagnostics(bctx, tools.DiagnosticsRequest{URIs: unseen, FirstWaitMs: int(w.wait / time.Millisecond)})
		cancel()
		w.mu.Lock()
		w.spent += time.Since(asked)
		for _, u := range unseen {
			w.before[u] = tools.FileDiagnostics{URI: u}
		}
		if err == nil {
			for _, fd := range files {
				w.before[fd.URI] = fd
			}
		}
		w.mu.Unlock()
	}
	res, err := w.Host.ApplyEdit(ctx, params)
	if err == nil && res != nil && res.Applied {
		w.mu.Lock()
		for _, u := range uris {
			if !contains(w.uris, u) {
				w.uris = append(w.uris, u)
			}
		}
		w.mu.Unlock()
	}
	return res, err
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// after waits, within the bound, for the diagnostics of the edited files
// and adds them to res: new ones in a <new-diagnostics> block shaped like
// Claude Code's reminder, the ones reported before the edit too in a
// second block. A failed call, a call that applied nothing, or a client
// that does not answer in time gets nothing added.
func (f *Feedback) after(ctx context.Context, w *watchedHost, mode string, wait time.Duration, res *tools.Result) *tools.Result {
	w.mu.Lock()
	uris := append([]string(nil), w.uris...)
	before := make([]tools.FileDiagnostics, 0, len(w.before))
	for _, fd := range w.before {
		before = append(before, fd)
	}
	w.mu.Unlock()
	left := w.left()
	if res == nil || res.IsError || len(uris) == 0 || left <= 0 {
		return res
	}
	start := time.Now()
	// The client is told the whole wait (the Neovim plugin takes its own
	// first wait off it); the server waits what is left of it.
	actx, cancel := context.WithTimeout(ctx, left+answerMargin)
	defer cancel()
	files, err := w.li.Diagnostics(actx, tools.DiagnosticsRequest{URIs: uris, WaitMs: int(wait / time.Millisecond)})
	f.log.Debug("diagnostics after an edit", "files", len(uris), "waited", time.Since(start), "err", err)
	if err != nil {
		return res
	}
	keep := func(s int) bool {
		return s == severityError || (mode != settings.DiagnosticsErrors && s == severityWarning)
	}
	fresh, old := splitNew(before, files, keep)
	text := DiagnosticsReminder(f.ws, fresh, old)
	if text == "" {
		return res
	}
	out := *res
	out.Content = append(append([]tools.Content(nil), res.Content...), tools.Content{Type: "text", Text: text})
	return &out
}

// DiagnosticsReminder is the text added to an edit's result: the new
// diagnostics as Claude Code's <new-diagnostics> reminder lists them, then
// those that were there before the edit ("" when there are none).
func DiagnosticsReminder(ws *workspace.Workspace, fresh, old []tools.FileDiagnostics) string {
	var text string
	if len(fresh) > 0 {
		text = "<new-diagnostics>The following new diagnostic issues were detected:\n" + formatFiles(ws, fresh) + "\n</new-diagnostics>"
	}
	if len(old) > 0 {
		if text != "" {
			text += "\n"
		}
		text += "<diagnostics>Reported before this edit and still reported:\n" + formatFiles(ws, old) + "\n</diagnostics>"
	}
	return text
}
