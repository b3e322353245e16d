package lspserver

import (
	"encoding/json"

	"github.com/toolhost/toolhost/session"
	"github.com/toolhost/toolhost/tools"
)

// The session grows features (a live settings store, a permission checker,
// background tasks) in packages of its own. The server reaches the optional
// ones through these small interfaces, so a session without one of them
// still serves everything else.

// settingsUpdater takes the client's workspace/didChangeConfiguration
// settings (the settings-file shape) as the top settings layer.
type settingsUpdater interface {
	UpdateSettings(raw json.RawMessage) error
}

// statusReporter adds the session's own state (MCP servers, background
// tasks) to toolhost/status.
type statusReporter interface {
	Status() map[string]any
}

// permissionChecker exposes the session's permission checker, which decides
// listTools' autoAllowed.
type permissionChecker interface {
	AutoAllowed(t tools.Tool) bool
}

// applyClientSettings forwards workspace/didChangeConfiguration settings.
func applyClientSettings(sess *session.Session, raw json.RawMessage) error {
	if u, ok := any(sess).(settingsUpdater); ok && len(raw) > 0 && string(raw) != "null" {
		return u.UpdateSettings(raw)
	}
	return nil
}

// modeController returns the session's mode controller (the pipeline's),
// or nil.
func modeController(sess *session.Session) tools.ModeController {
	if sess.Pipeline != nil {
		return sess.Pipeline.Modes
	}
	return nil
}

// autoAllowed reports whether a call of t runs without a prompt: the
// session's checker decides when it has one; otherwise tools that only read
// are allowed.
func autoAllowed(sess *session.Session, t tools.Tool) bool {
	if c, ok := any(sess).(permissionChecker); ok {
		return c.AutoAllowed(t)
	}
	return t.SideEffect() == tools.SideEffectNone
}

// sessionStatus returns the session's own status fields, or nil.
func sessionStatus(sess *session.Session) map[string]any {
	if r, ok := any(sess).(statusReporter); ok {
		return r.Status()
	}
	return nil
}
