package mcpserver

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/session"
)

// trustField is the one field of the trust elicitation.
const trustField = "trust"

// AskTrust asks the first client, once it completed the handshake and
// only when it declared elicitation, whether each untrusted workspace root
// that asks for something may be trusted. Declining, cancelling or a
// client that cannot be asked leaves the folder untrusted; what it asked
// for is in the log (stderr) either way.
func (s *Server) AskTrust(ctx context.Context, sess *session.Session) {
	select {
	case <-s.clientReady:
	case <-ctx.Done():
		return
	}
	if !newHost(s.client, nil, s.log).canElicit() {
		return
	}
	for _, root := range sess.TrustQuestion() {
		items := sess.UntrustedItems(root)
		res, err := s.client.Elicit(ctx, &sdk.ElicitParams{
			Mode:    "form",
			Message: session.TrustQuestionText(root, items),
			RequestedSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					trustField: map[string]any{
						"type":        "boolean",
						"title":       "Trust this folder",
						"description": "Apply the folder's settings, hooks and MCP servers listed above.",
					},
				},
				"required": []string{trustField},
			},
		})
		if err != nil {
			s.log.Info("could not ask whether the folder is trusted; it stays untrusted", "folder", root, "err", err)
			return
		}
		if res.Action == "accept" && res.Content[trustField] == true {
			if err := sess.TrustFolder(root); err != nil {
				s.log.Warn("the trust could not be saved; the folder stays untrusted", "folder", root, "err", err, "toTrust", session.TrustCommand(root))
			}
			continue
		}
		sess.DeclineTrust()
	}
}
