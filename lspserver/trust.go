package lspserver

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/toolhost/toolhost/session"
	"github.com/toolhost/toolhost/settings"
)

// Labels of the trust question's actions in window/showMessageRequest.
const (
	actionTrust     = "Trust folder"
	actionDontTrust = "Don't trust"
)

// trustRequest is the params of toolhost/requestTrust: the folder and
// exactly what it would enable once trusted.
type trustRequest struct {
	Folder string             `json:"folder"`
	Items  []settings.Ignored `json:"items"`
	// Message is the question in words, for clients that show it as is.
	Message string `json:"message"`
	// TrustCommand trusts the folder from a shell instead.
	TrustCommand string `json:"trustCommand"`
}

// trustAnswer is the client's answer to toolhost/requestTrust; a null
// answer or an error is "don't trust".
type trustAnswer struct {
	Trust bool `json:"trust"`
}

// askTrust asks the user, after initialized, whether each untrusted root
// that asks for something may be trusted: once per folder and session (a
// folder added later is asked about when it is added). Without a
// way to ask, the folder stays untrusted; the log names what was ignored.
func (s *server) askTrust(ctx context.Context, sess *session.Session) {
	for _, root := range sess.TrustQuestion() {
		items := sess.UntrustedItems(root)
		if len(items) == 0 {
			continue
		}
		trust, asked := s.requestTrust(ctx, root, items)
		switch {
		case trust:
			if err := sess.TrustFolder(root); err != nil {
				s.opts.Log.Warn("the user trusted the folder, but the trust could not be saved, so its settings stay ignored; trust it from a shell", "folder", root, "err", err, "toTrust", session.TrustCommand(root))
			}
		case asked:
			sess.DeclineTrust()
		}
		// The settings are reloaded by now: a client can update what it
		// shows (and a test knows when to go on).
		_ = s.notify("toolhost/trustChanged", sess.Trust())
	}
}

// requestTrust asks through toolhost/requestTrust when the client declares
// it, else with window/showMessageRequest. It reports the answer and whether
// the user could be asked at all.
func (s *server) requestTrust(ctx context.Context, root string, items []settings.Ignored) (trust, asked bool) {
	msg := session.TrustQuestionText(root, items)
	caps := s.capabilities()
	if caps.Toolhost.RequestTrust {
		var res *trustAnswer
		err := s.callClient(ctx, "toolhost/requestTrust", trustRequest{Folder: root, Items: items, Message: msg, TrustCommand: session.TrustCommand(root)}, &res)
		if err != nil {
			s.opts.Log.Warn("could not ask whether the folder is trusted; it stays untrusted", "folder", root, "err", err)
			return false, false
		}
		return res != nil && res.Trust, true
	}
	if !caps.canShowMessageRequest() {
		return false, false
	}
	// Not trusting comes first: clients make the first action the default
	// (Enter).
	choice, err := s.callHost(nil).showMessageRequest(ctx, protocol.MessageTypeWarning, msg, []string{actionDontTrust, actionTrust})
	if err != nil {
		s.opts.Log.Warn("could not ask whether the folder is trusted; it stays untrusted", "folder", root, "err", err)
		return false, false
	}
	return choice == actionTrust, true
}
