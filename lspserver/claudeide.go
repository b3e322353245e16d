package lspserver

import (
	"context"
	"encoding/json"
	"path/filepath"

	"github.com/toolhost/toolhost/ideserver"
	"github.com/toolhost/toolhost/session"
)

// ideNotification reports whether k is a notification a client may pass
// on to the Claude Code CLIs (toolhost/ideNotify): the protocol's two.
func ideNotification(k string) bool {
	switch k {
	case "selection_changed", "at_mentioned":
		return true
	}
	return false
}

// ideEditor answers the IDE tools only the editor can through the
// client's toolhost/ideTool.
type ideEditor struct{ s *server }

func (e ideEditor) IDETool(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	var answer json.RawMessage
	err := e.s.callClient(ctx, "toolhost/ideTool", map[string]any{"name": name, "arguments": args}, &answer)
	return answer, err
}

// startClaudeIDE starts Claude Code's IDE listener for sess when the client
// answers toolhost/ideTool and the setting server.claudeCodeIde allows it;
// ideReady is closed once it runs, failed, or is off.
func (s *server) startClaudeIDE(sess *session.Session, p initializeParams) {
	if !p.Capabilities.Toolhost.IDETools || !sess.Settings.Current().Server.ServesClaudeCodeIDE() {
		close(s.ideReady)
		return
	}
	editor := ""
	if p.ClientInfo != nil {
		editor = p.ClientInfo.Name
	}
	pid := p.Capabilities.Toolhost.IDEProcessID
	if pid <= 0 && p.ProcessID != nil {
		pid = int(*p.ProcessID)
	}
	ws := sess.Workspace
	s.bg.Go("starting Claude Code's IDE listener", func(ctx context.Context) {
		defer close(s.ideReady)
		if ctx.Err() != nil {
			return
		}
		ide, err := ideserver.Start(ideserver.Config{
			Editor:  ideEditor{s},
			Folders: ws.Roots,
			Document: func(path string) (string, bool) {
				text, _, open := ws.Document(filepath.Clean(path))
				return text, open
			},
			IDEName: editorName(editor),
			PID:     pid,
			Version: s.opts.Version,
			Log:     s.opts.Log,
		})
		if err != nil {
			s.opts.Log.Warn("the Claude Code CLI cannot use this editor as its IDE: the listener did not start", "err", err)
			return
		}
		s.ide.Store(ide)
		// Folders added while it started.
		if err := ide.SetFolders(ws.Roots()); err != nil {
			s.opts.Log.Warn("Claude Code's IDE lock file keeps the old workspace folders", "err", err)
		}
	})
}

// ideNotify passes a selection_changed or at_mentioned of the client on to
// the connected CLIs.
func (s *server) ideNotify(params json.RawMessage) error {
	var p struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return err
	}
	if !ideNotification(p.Method) {
		return invalidParams("toolhost/ideNotify: method %q is not one the Claude Code CLI takes (selection_changed, at_mentioned)", p.Method)
	}
	ide := s.ide.Load()
	if ide == nil {
		return nil
	}
	// Off the read loop: a slow CLI must not hold up document changes.
	s.bg.Go("telling Claude Code "+p.Method, func(ctx context.Context) {
		if err := ide.Notify(ctx, p.Method, p.Params); err != nil {
			s.opts.Log.Debug("a Claude Code CLI missed a notification", "method", p.Method, "err", err)
		}
	})
	return nil
}

// ideStatus is toolhost/status's claudeCodeIde: where the CLI connects.
// The token is only in the lock file.
func (s *server) ideStatus() map[string]any {
	ide := s.ide.Load()
	if ide == nil {
		return nil
	}
	return map[string]any{"port": ide.Port(), "lockFile": ide.LockPath(), "connections": ide.Connections()}
}
