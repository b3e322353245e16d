package lspserver

import (
	"encoding/json"

	"github.com/toolhost/toolhost/session"
	"github.com/toolhost/toolhost/tools"
)

// applyClientSettings forwards workspace/didChangeConfiguration settings to
// the session's settings store (null is ignored: LSP clients send it when
// they have no settings section for us).
func applyClientSettings(sess *session.Session, raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return sess.UpdateSettings(raw)
}

// modeController returns the session's mode controller (the pipeline's),
// or nil.
func modeController(sess *session.Session) tools.ModeController {
	if sess.Pipeline != nil && sess.Pipeline.Modes != nil {
		return sess.Pipeline.Modes
	}
	return nil
}

// autoAllowed reports whether a call of t runs without a prompt: the
// session's checker decides when it has one; otherwise tools that only read
// are allowed.
func autoAllowed(sess *session.Session, t tools.Tool) bool {
	if sess.Permissions != nil {
		return sess.AutoAllowed(t)
	}
	return t.SideEffect() == tools.SideEffectNone
}

// sessionStatus returns the session's own status fields.
func sessionStatus(sess *session.Session) map[string]any {
	if sess.Settings == nil {
		return nil
	}
	return sess.Status()
}
