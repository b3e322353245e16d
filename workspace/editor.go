package workspace

import (
	"context"
	"encoding/json"
	"errors"
)

// Editor is the part of the editor the workspace needs to apply changes.
// lspserver implements it over workspace/applyEdit.
type Editor interface {
	// CanApplyEdit reports the client's workspace.applyEdit capability.
	CanApplyEdit() bool
	// SavesAppliedEdits reports experimental.toolhost.savesAppliedEdits: the
	// client saves documents it applied edits to, so the server need not
	// write them.
	SavesAppliedEdits() bool
	// ApplyEdit sends workspace/applyEdit and returns the client's answer.
	ApplyEdit(ctx context.Context, params *ApplyWorkspaceEditParams) (*ApplyWorkspaceEditResult, error)
}

// ErrNoEditor is returned by ApplyEdit of a host without an editor.
var ErrNoEditor = errors.New("no editor is connected")

// The LSP 3.16/3.17 structs below are defined here because go.lsp.dev/protocol
// v0.12.0 cannot express them: its DocumentChanges holds only
// TextDocumentEdit (no CreateFile) and its edits carry no annotation ids.

// ApplyWorkspaceEditParams is the params of workspace/applyEdit.
type ApplyWorkspaceEditParams struct {
	Label string        `json:"label,omitempty"`
	Edit  WorkspaceEdit `json:"edit"`
	// Toolhost carries what a client that saves applied edits needs to
	// save safely; clients that do not know it ignore it.
	Toolhost *EditHints `json:"toolhost,omitempty"`
}

// EditHints is the toolhost extension of workspace/applyEdit's params.
type EditHints struct {
	// Disk holds, by URI, the SHA-256 (hex) of the disk content a change
	// was planned on, for documents whose buffer was behind the disk (the
	// disk changed under a buffer with no unsaved changes): the editor's
	// check that the disk is what its buffer was loaded from fails for
	// them, and saving the edited buffer is right exactly while the disk
	// still holds this content.
	Disk map[string]string `json:"disk,omitempty"`
}

// ApplyWorkspaceEditResult is the client's answer to workspace/applyEdit.
type ApplyWorkspaceEditResult struct {
	Applied       bool   `json:"applied"`
	FailureReason string `json:"failureReason,omitempty"`
	FailedChange  *int   `json:"failedChange,omitempty"`
}

// WorkspaceEdit carries document changes in order and their annotations.
type WorkspaceEdit struct {
	// DocumentChanges holds *TextDocumentEdit and *CreateFile values.
	DocumentChanges   []DocumentChange            `json:"documentChanges"`
	ChangeAnnotations map[string]ChangeAnnotation `json:"changeAnnotations,omitempty"`
}

// DocumentChange is one of TextDocumentEdit or CreateFile (a create or a
// delete); exactly one is
// set. The pointers are embedded, so encoding/json writes the fields of the
// one that is set: a MarshalJSON method would make it encode a Write's
// whole content twice, once in the method and once more to check the
// method's output.
type DocumentChange struct {
	*TextDocumentEdit
	*CreateFile
}

// UnmarshalJSON reads a CreateFile (it has "kind") or a TextDocumentEdit.
func (d *DocumentChange) UnmarshalJSON(b []byte) error {
	var probe struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return err
	}
	if probe.Kind == "create" || probe.Kind == "delete" {
		d.CreateFile = new(CreateFile)
		return json.Unmarshal(b, d.CreateFile)
	}
	if probe.Kind != "" {
		return errors.New("unsupported document change kind " + probe.Kind)
	}
	d.TextDocumentEdit = new(TextDocumentEdit)
	return json.Unmarshal(b, d.TextDocumentEdit)
}

// TextDocumentEdit edits one document; Version is null for a document the
// editor does not have open.
type TextDocumentEdit struct {
	TextDocument VersionedTextDocumentIdentifier `json:"textDocument"`
	Edits        []AnnotatedTextEdit             `json:"edits"`
}

// VersionedTextDocumentIdentifier names a document and, when open, its version.
type VersionedTextDocumentIdentifier struct {
	URI     string `json:"uri"`
	Version *int32 `json:"version"`
}

// AnnotatedTextEdit is a TextEdit with an optional annotation id.
type AnnotatedTextEdit struct {
	Range        Range  `json:"range"`
	NewText      string `json:"newText"`
	AnnotationID string `json:"annotationId,omitempty"`
}

// Range is an LSP range (positions in the negotiated encoding).
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Position is an LSP position: zero-based line and character offset in the
// negotiated position encoding (UTF-16 code units by default).
type Position struct {
	Line      uint32 `json:"line"`
	Character uint32 `json:"character"`
}

// CreateFile creates a file (LSP resource operation). With Kind "delete"
// and no options it is, field for field, LSP's DeleteFile, which a rewind
// sends for a file the turn created: a second embedded type with the same
// JSON fields would make encoding/json drop both.
type CreateFile struct {
	Kind         string             `json:"kind"` // "create", or "delete"
	URI          string             `json:"uri"`
	Options      *CreateFileOptions `json:"options,omitempty"`
	AnnotationID string             `json:"annotationId,omitempty"`
}

// CreateFileOptions are the options of CreateFile.
type CreateFileOptions struct {
	Overwrite      bool `json:"overwrite,omitempty"`
	IgnoreIfExists bool `json:"ignoreIfExists,omitempty"`
}

// ChangeAnnotation labels edits; NeedsConfirmation asks the editor to show a
// preview before applying.
type ChangeAnnotation struct {
	Label             string `json:"label"`
	NeedsConfirmation bool   `json:"needsConfirmation,omitempty"`
	Description       string `json:"description,omitempty"`
}
