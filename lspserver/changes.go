package lspserver

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/toolhost/toolhost/session"
	"github.com/toolhost/toolhost/workspace"
)

// withOrigin carries the turn and agent of an editor's call to the change
// journal; the agent is the client itself when the call names none.
func (s *server) withOrigin(ctx context.Context, turn, agent string) context.Context {
	if strings.TrimSpace(agent) == "" {
		agent = editorName(s.clientName)
	}
	return workspace.WithOrigin(ctx, workspace.Origin{Turn: turn, Agent: agent})
}

// changesParams are toolhost/changes' params.
type changesParams struct {
	// Limit is the most turns listed, newest first (all when 0).
	Limit int `json:"limit"`
}

// listChanges answers toolhost/changes: the journal's turns, newest first,
// with their calls and files and where each file stands now.
func listChanges(ctx context.Context, sess *session.Session, raw json.RawMessage) (any, error) {
	var p changesParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if p.Limit < 0 {
		return nil, invalidParams("field \"limit\" is %d: give 0 (all) or a positive number of turns", p.Limit)
	}
	ws := sess.Workspace
	j := ws.Journal()
	if j == nil {
		return map[string]any{"turns": []workspace.Turn{}}, nil
	}
	// A file's state is read once per listing, however many calls name it.
	seen := map[string]string{}
	turns := j.Turns(func(path, before, after string) string {
		now, ok := seen[path]
		if !ok {
			now = ws.CurrentHash(ctx, path)
			seen[path] = now
		}
		switch now {
		case after:
			return "asLeft"
		case before:
			return "rewound"
		}
		return "changedSince"
	})
	if p.Limit > 0 && len(turns) > p.Limit {
		turns = turns[:p.Limit]
	}
	return map[string]any{"turns": turns}, nil
}

// rewindParams are toolhost/rewind's params: a turn, a call, or (neither)
// the last turn; path narrows either to one file.
type rewindParams struct {
	Turn string `json:"turn"`
	Call string `json:"call"`
	Path string `json:"path"`
}

// rewind answers toolhost/rewind: the selected changes undone as one edit
// through the editor; files changed since are kept and named.
func (s *server) rewind(ctx context.Context, sess *session.Session, raw json.RawMessage, fl *inflightCall) (any, error) {
	var p rewindParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if p.Turn != "" && p.Call != "" {
		return nil, invalidParams("give \"turn\" or \"call\", not both (a call names its turn)")
	}
	sel := workspace.Selection{Turn: p.Turn, Call: p.Call}
	if p.Path != "" {
		path := p.Path
		if strings.HasPrefix(path, "file:") {
			var err error
			if path, err = workspace.URIToPath(path); err != nil {
				return nil, invalidParams("field \"path\": %v", err)
			}
		}
		abs, err := sess.Workspace.Resolve(path)
		if err != nil {
			return nil, invalidParams("field \"path\": %v", err)
		}
		sel.Path = abs
	}
	res, err := sess.Workspace.Rewind(ctx, s.callHost(fl.cancel), sel)
	if err != nil {
		return nil, invalidParams("%v", err)
	}
	return res, nil
}
