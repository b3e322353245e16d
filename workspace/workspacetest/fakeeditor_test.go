package workspacetest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/workspace"
)

func pos(l, c uint32) workspace.Position { return workspace.Position{Line: l, Character: c} }

func edit(uri string, version *int32, edits ...workspace.AnnotatedTextEdit) workspace.DocumentChange {
	return workspace.DocumentChange{TextDocumentEdit: &workspace.TextDocumentEdit{
		TextDocument: workspace.VersionedTextDocumentIdentifier{URI: uri, Version: version},
		Edits:        edits,
	}}
}

func replace(l1, c1, l2, c2 uint32, text string) workspace.AnnotatedTextEdit {
	return workspace.AnnotatedTextEdit{Range: workspace.Range{Start: pos(l1, c1), End: pos(l2, c2)}, NewText: text}
}

func TestFakeEditorApplyEdit(t *testing.T) {
	v1, v9 := int32(1), int32(9)
	tests := []struct {
		name    string
		open    string // text of the open document, "" = closed
		changes func(uri string) []workspace.DocumentChange
		applied bool
		reason  string
		buffer  string
	}{
		{
			name: "UTF-16 positions: emoji count two units",
			open: "a😀b\n",
			changes: func(uri string) []workspace.DocumentChange {
				return []workspace.DocumentChange{edit(uri, &v1, replace(0, 3, 0, 4, "B"))}
			},
			applied: true,
			buffer:  "a😀B\n",
		},
		{
			name: "several edits refer to the original text",
			open: "one two three\n",
			changes: func(uri string) []workspace.DocumentChange {
				return []workspace.DocumentChange{edit(uri, &v1, replace(0, 8, 0, 13, "3"), replace(0, 0, 0, 3, "1"))}
			},
			applied: true,
			buffer:  "1 two 3\n",
		},
		{
			name: "stale version is refused",
			open: "x\n",
			changes: func(uri string) []workspace.DocumentChange {
				return []workspace.DocumentChange{edit(uri, &v9, replace(0, 0, 0, 1, "y"))}
			},
			reason: "version 9",
			buffer: "x\n",
		},
		{
			name: "position inside a surrogate pair is refused",
			open: "😀\n",
			changes: func(uri string) []workspace.DocumentChange {
				return []workspace.DocumentChange{edit(uri, &v1, replace(0, 1, 0, 1, "x"))}
			},
			reason: "inside a character",
			buffer: "😀\n",
		},
		{
			name: "CreateFile over an existing file is refused",
			open: "x\n",
			changes: func(uri string) []workspace.DocumentChange {
				return []workspace.DocumentChange{{CreateFile: &workspace.CreateFile{Kind: "create", URI: uri}}}
			},
			reason: "already exists",
			buffer: "x\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			ws := workspace.New(dir)
			path := filepath.Join(dir, "f.txt")
			if err := os.WriteFile(path, []byte(tt.open), 0o644); err != nil {
				t.Fatal(err)
			}
			fe := NewFakeEditor(ws)
			if err := fe.Open(path, tt.open); err != nil {
				t.Fatal(err)
			}
			res, err := fe.ApplyEdit(context.Background(), &workspace.ApplyWorkspaceEditParams{
				Edit: workspace.WorkspaceEdit{DocumentChanges: tt.changes(workspace.PathToURI(path))},
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Applied != tt.applied || !strings.Contains(res.FailureReason, tt.reason) {
				t.Errorf("result %+v, want applied=%v reason containing %q", res, tt.applied, tt.reason)
			}
			buf, _, _ := fe.Buffer(path)
			if buf != tt.buffer {
				t.Errorf("buffer %q, want %q", buf, tt.buffer)
			}
			if text, _, _ := ws.Document(path); text != tt.buffer {
				t.Errorf("workspace overlay %q, want %q (didChange not reported?)", text, tt.buffer)
			}
			if len(fe.Calls()) != 1 {
				t.Errorf("%d calls recorded", len(fe.Calls()))
			}
		})
	}
}

func TestFakeEditorSavesAndRejects(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "new", "f.txt")
	uri := workspace.PathToURI(path)
	fe := NewFakeEditor(nil)
	params := &workspace.ApplyWorkspaceEditParams{Edit: workspace.WorkspaceEdit{DocumentChanges: []workspace.DocumentChange{
		{CreateFile: &workspace.CreateFile{Kind: "create", URI: uri}},
		edit(uri, nil, replace(0, 0, 0, 0, "hello\n")),
	}}}

	fe.Reject("no")
	res, err := fe.ApplyEdit(context.Background(), params)
	if err != nil || res.Applied || res.FailureReason != "no" {
		t.Fatalf("rejecting editor answered %+v, %v", res, err)
	}
	if _, _, ok := fe.Buffer(path); ok {
		t.Error("a rejected CreateFile left a buffer")
	}

	fe.Reject("")
	fe.SetSaves(true)
	res, err = fe.ApplyEdit(context.Background(), params)
	if err != nil || !res.Applied {
		t.Fatalf("ApplyEdit = %+v, %v", res, err)
	}
	if data, err := os.ReadFile(path); err != nil || string(data) != "hello\n" {
		t.Errorf("saving editor left %q, %v on disk", data, err)
	}
	if !fe.SavesAppliedEdits() || !fe.CanApplyEdit() {
		t.Error("capabilities not reported")
	}
}
