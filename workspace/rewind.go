package workspace

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unsafe"

	"github.com/toolhost/toolhost/internal/udiff"
	"github.com/toolhost/toolhost/internal/visible"
)

// Rewound is what Rewind did.
type Rewound struct {
	// Turn is the turn the selection fell in.
	Turn string `json:"turn"`
	// Label is the undo step's name in the editor.
	Label string `json:"label"`
	// Restored are the files brought back to what they held before.
	Restored []string `json:"restored"`
	// Kept are the files left as they are, each with why.
	Kept []KeptFile `json:"kept"`
	// Message says it all in one sentence for the user.
	Message string `json:"message"`
}

// KeptFile is a file a rewind left as it is.
type KeptFile struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Label of a restore: the editor shows it in its undo history.
func rewindLabel(turn string, sel Selection, n int) string {
	switch {
	case sel.Call != "":
		return "toolhost: rewind call " + sel.Call
	case n == 1 && sel.Path != "":
		return "toolhost: rewind " + filepath.Base(sel.Path)
	}
	return "toolhost: rewind turn " + turn
}

// Rewind restores the files a selection of the journal changed to what
// they held before it, as one change through the editor (one
// workspace/applyEdit, so the editor's undo brings the agent's work back),
// or on disk without one. It never writes over a later change: a file
// whose content is not what the selection left is kept and reported, the
// rest are restored. A file the selection created is deleted.
func (w *Workspace) Rewind(ctx context.Context, ed Editor, sel Selection) (Rewound, error) {
	j := w.Journal()
	if j == nil {
		return Rewound{}, errors.New("this session keeps no change journal, so there is nothing to rewind")
	}
	turn, spans, err := j.Select(sel)
	if err != nil {
		return Rewound{}, err
	}
	sort.SliceStable(spans, func(a, b int) bool { return spans[a].Path < spans[b].Path })
	for _, s := range spans {
		unlock, err := w.locks.lock(ctx, s.Path)
		if err != nil {
			return Rewound{}, err
		}
		defer unlock()
	}
	out := Rewound{Turn: turn, Label: rewindLabel(turn, sel, len(spans)), Restored: []string{}, Kept: []KeptFile{}}
	type restore struct {
		span    FileSpan
		before  []byte
		current []byte
		t       docTruth
	}
	var todo []restore
	keep := func(path, format string, args ...any) {
		out.Kept = append(out.Kept, KeptFile{Path: path, Reason: fmt.Sprintf(format, args...)})
	}
	for _, s := range spans {
		if !s.Kept {
			keep(s.Path, "its content before the turn was not kept (larger than the journal's limit, or dropped)")
			continue
		}
		t := w.docState(s.Path)
		if t.kind == conflict {
			keep(s.Path, "it has unsaved changes in the editor and the disk changed too; save or revert it first")
			continue
		}
		var current []byte
		exists := true
		if t.kind == fromBuffer {
			current = []byte(t.text)
		} else {
			current, err = w.ReadRegular(ctx, s.Path, nil, ReadFileMax)
			if errors.Is(err, fs.ErrNotExist) {
				exists, err = false, nil
			}
			if err != nil {
				keep(s.Path, "it cannot be read: %v", err)
				continue
			}
		}
		now := ""
		if exists {
			now = Hash(current)
		}
		switch {
		case now == s.Before:
			keep(s.Path, "it already holds what it held before")
			continue
		case now != s.After:
			keep(s.Path, "you changed %s after the turn", filepath.Base(s.Path))
			continue
		}
		before, err := j.Content(s.Before)
		if err != nil {
			keep(s.Path, "%v", err)
			continue
		}
		todo = append(todo, restore{span: s, before: before, current: current, t: t})
	}
	if len(todo) > 0 {
		if ed != nil && ed.CanApplyEdit() {
			edit := WorkspaceEdit{ChangeAnnotations: map[string]ChangeAnnotation{
				annotationID: {Label: visible.Line(out.Label)},
			}}
			params := &ApplyWorkspaceEditParams{Label: out.Label, Edit: edit}
			for _, r := range todo {
				params.Edit.DocumentChanges = append(params.Edit.DocumentChanges, w.restoreChange(r.span, r.current, r.before, r.t))
				if r.t.kind == diskAhead {
					// The buffer is behind a disk that a command changed
					// (Bash's change being rewound): as for Modify, the
					// disk's hash lets the editor save over it.
					if params.Toolhost == nil {
						params.Toolhost = &EditHints{Disk: map[string]string{}}
					}
					sum := sha256.Sum256(r.current)
					params.Toolhost.Disk[PathToURI(r.span.Path)] = hex.EncodeToString(sum[:])
				}
			}
			res, err := ed.ApplyEdit(ctx, params)
			if err == nil && (res == nil || !res.Applied) {
				reason := ""
				if res != nil {
					reason = res.FailureReason
				}
				err = &RejectedError{Path: todo[0].span.Path, Reason: reason}
			}
			if err != nil {
				return Rewound{}, fmt.Errorf("the rewind was not applied, nothing changed: %w", err)
			}
		}
		for _, r := range todo {
			if err := w.settleRestore(ctx, ed, r.span, r.before); err != nil {
				keep(r.span.Path, "%v", err)
				continue
			}
			out.Restored = append(out.Restored, r.span.Path)
		}
	}
	out.Message = rewindMessage(out)
	return out, nil
}

// restoreChange is the document change that takes a file from current
// back to before: a deletion for a file the turn created.
func (w *Workspace) restoreChange(s FileSpan, current, before []byte, t docTruth) DocumentChange {
	uri := PathToURI(s.Path)
	if s.Created {
		return DocumentChange{CreateFile: &CreateFile{Kind: "delete", URI: uri, AnnotationID: annotationID}}
	}
	ident := VersionedTextDocumentIdentifier{URI: uri}
	if t.kind != notOpen {
		v := t.version
		ident.Version = &v
		if t.kind == diskAhead {
			// The buffer is behind the disk the turn left: edit the
			// buffer's own text.
			current = []byte(t.text)
			if !bytes.HasPrefix(current, bomUTF8) {
				before = bytes.TrimPrefix(before, bomUTF8)
			}
		}
	}
	from, to := unsafe.String(unsafe.SliceData(current), len(current)), unsafe.String(unsafe.SliceData(before), len(before))
	edits := textEdits(from, minimalEdits(from, to, udiff.Changes(from, to)), w.PositionEncoding(), annotationID)
	return DocumentChange{TextDocumentEdit: &TextDocumentEdit{TextDocument: ident, Edits: edits}}
}

// settleRestore makes the disk hold before (or no file) after the editor
// applied the rewind, or in place of it without an editor.
func (w *Workspace) settleRestore(ctx context.Context, ed Editor, s FileSpan, before []byte) error {
	viaEditor := ed != nil && ed.CanApplyEdit()
	if s.Created {
		if err := os.Remove(s.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("it could not be deleted: %v", err)
		}
		w.ForgetRead(s.Path)
		return nil
	}
	if viaEditor {
		w.waitDocument(ctx, s.Path, before, editorSyncTimeout)
		if ed.SavesAppliedEdits() {
			if same, err := w.fileEquals(s.Path, before); err == nil && same {
				w.rebase(s.Path)
				return nil
			}
		}
	}
	if err := w.WriteFile(s.Path, before); err != nil {
		return err
	}
	if !viaEditor {
		w.markBehind(s.Path, before)
	} else {
		w.rebase(s.Path)
	}
	return nil
}

// rewindMessage says what a rewind did, for the user.
func rewindMessage(r Rewound) string {
	var b strings.Builder
	switch n := len(r.Restored); n {
	case 0:
		b.WriteString("Nothing was rewound.")
	case 1:
		fmt.Fprintf(&b, "Rewound %s.", filepath.Base(r.Restored[0]))
	default:
		fmt.Fprintf(&b, "Rewound %d files.", n)
	}
	for _, k := range r.Kept {
		fmt.Fprintf(&b, " Kept %s: %s.", filepath.Base(k.Path), k.Reason)
	}
	return b.String()
}
