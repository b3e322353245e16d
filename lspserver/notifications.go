package lspserver

import (
	"context"
	"encoding/json"
	"strings"

	segjson "github.com/segmentio/encoding/json"
	"go.lsp.dev/protocol"

	"github.com/toolhost/toolhost/internal/jsonstr"
	"github.com/toolhost/toolhost/workspace"
)

// handleNotification handles a notification in the read loop, so document
// changes apply in the order they were sent. It never waits on the client.
func (s *server) handleNotification(_ context.Context, method string, params json.RawMessage) {
	switch method {
	case "exit":
		s.exit()
		return
	case "$/cancelRequest":
		s.cancelRequest(params)
		return
	case "$/setTrace":
		var p protocol.SetTraceParams
		if err := json.Unmarshal(params, &p); err == nil {
			s.trace.Store(normaliseTrace(string(p.Value)))
		}
		return
	}
	sess := s.session()
	if sess == nil || s.shutdown.Load() {
		// LSP: notifications before initialize (and after shutdown) are dropped.
		return
	}
	ws := sess.Workspace
	var err error
	switch method {
	case "initialized":
		s.readyOnce.Do(func() {
			close(s.ready)
			s.bg.Go("asking whether the folder is trusted", func(ctx context.Context) { s.askTrust(ctx, sess) })
		})
	case "textDocument/didOpen":
		// The params hold the whole document: the envelope is read in one
		// pass (segmentio/encoding) with the text left raw, and the text
		// unquoted once into its own buffer (jsonstr).
		var p struct {
			TextDocument struct {
				URI        string          `json:"uri"`
				LanguageID string          `json:"languageId"`
				Version    int32           `json:"version"`
				Text       json.RawMessage `json:"text"`
			} `json:"textDocument"`
		}
		if _, err = segjson.Parse(params, &p, segjson.ZeroCopy); err == nil {
			// ZeroCopy: the names are views of the message, which the
			// document must not keep alive.
			d := p.TextDocument
			var text string
			if text, err = optionalText(d.Text); err == nil {
				err = ws.Open(strings.Clone(d.URI), strings.Clone(d.LanguageID), d.Version, text)
			}
		}
	case "textDocument/didChange":
		// Not protocol.DidChangeTextDocumentParams: its change event has a
		// non-pointer Range, so a full-text change cannot be told apart.
		// Each change's text is unquoted once (jsonstr), as didOpen's.
		var p struct {
			TextDocument struct {
				URI     string `json:"uri"`
				Version int32  `json:"version"`
			} `json:"textDocument"`
			ContentChanges []struct {
				Range *workspace.Range `json:"range"`
				Text  json.RawMessage  `json:"text"`
			} `json:"contentChanges"`
		}
		if _, err = segjson.Parse(params, &p, segjson.ZeroCopy); err == nil {
			changes := make([]workspace.ContentChange, len(p.ContentChanges))
			for i, c := range p.ContentChanges {
				changes[i].Range = c.Range
				if changes[i].Text, err = optionalText(c.Text); err != nil {
					break
				}
			}
			if err == nil {
				err = ws.Change(strings.Clone(p.TextDocument.URI), p.TextDocument.Version, changes)
			}
		}
	case "textDocument/didClose":
		var p protocol.DidCloseTextDocumentParams
		if err = json.Unmarshal(params, &p); err == nil {
			err = ws.Close(string(p.TextDocument.URI))
		}
	case "textDocument/didSave":
		var p protocol.DidSaveTextDocumentParams
		if err = json.Unmarshal(params, &p); err == nil {
			err = ws.Save(string(p.TextDocument.URI))
		}
	case "workspace/didChangeWorkspaceFolders":
		var p protocol.DidChangeWorkspaceFoldersParams
		if err = json.Unmarshal(params, &p); err == nil {
			sess.SetRoots(changedRoots(ws.Roots(), p.Event))
			select {
			case <-s.ready:
				// A folder added to the session is asked about as the
				// first ones were; before initialized, that question
				// covers it.
				s.bg.Go("asking whether an added folder is trusted", func(ctx context.Context) { s.askTrust(ctx, sess) })
			default:
			}
			if e := s.agentEndpoint(); e != nil {
				if err := e.setRoots(ws.Roots()); err != nil {
					s.opts.Log.Warn("the session file keeps the old workspace folders", "err", err)
				}
			}
			if ide := s.ide.Load(); ide != nil {
				if err := ide.SetFolders(ws.Roots()); err != nil {
					s.opts.Log.Warn("Claude Code's IDE lock file keeps the old workspace folders", "err", err)
				}
			}
		}
	case "workspace/didChangeConfiguration":
		var p struct {
			Settings json.RawMessage `json:"settings"`
		}
		if err = json.Unmarshal(params, &p); err == nil {
			// null is ignored: LSP clients send it when they have no
			// settings section for this server.
			if len(p.Settings) > 0 && string(p.Settings) != "null" {
				err = sess.UpdateSettings(p.Settings)
			}
		}
	case "toolhost/ideNotify":
		err = s.ideNotify(params)
	case "window/workDoneProgress/cancel":
		var p struct {
			Token json.RawMessage `json:"token"`
		}
		if err = json.Unmarshal(params, &p); err == nil {
			s.cancelProgress(tokenKey(p.Token))
		}
	default:
		if !strings.HasPrefix(method, "$/") {
			s.opts.Log.Debug("ignored an unknown notification", "method", method)
		}
		return
	}
	if err != nil {
		sess.Log.Warn("could not handle a notification", "method", method, "err", err)
	}
}

// optionalText decodes a document's text; a missing one is "", as
// decoding into a string leaves it.
func optionalText(raw json.RawMessage) (string, error) {
	if raw == nil {
		return "", nil
	}
	return jsonstr.Decode(raw)
}

// changedRoots applies a workspace folders change event to roots.
func changedRoots(roots []string, ev protocol.WorkspaceFoldersChangeEvent) []string {
	removed := map[string]bool{}
	for _, f := range ev.Removed {
		if p, err := workspace.URIToPath(f.URI); err == nil {
			removed[p] = true
		}
	}
	var out []string
	for _, r := range roots {
		if !removed[r] {
			out = append(out, r)
		}
	}
	for _, f := range ev.Added {
		if p, err := workspace.URIToPath(f.URI); err == nil && !contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// tokenKey turns a progress token (string or number) into a map key.
func tokenKey(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}
