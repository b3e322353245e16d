package workspace

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestAppendJSONIsEncodingJSON checks that the hand-written encoding of
// workspace/applyEdit's params gives json.Marshal's bytes exactly, for every
// shape a change takes and for text that needs escaping.
func TestAppendJSONIsEncodingJSON(t *testing.T) {
	v := int32(7)
	awkward := "quote \" backslash \\ <html> & \b\f\n\r\t \x01\x1f \x7f é 😀 \u2028\u2029 bad \xff\xfe end"
	edit := func(text string) DocumentChange {
		return DocumentChange{TextDocumentEdit: &TextDocumentEdit{
			TextDocument: VersionedTextDocumentIdentifier{URI: "file:///a%20b.txt", Version: &v},
			Edits: []AnnotatedTextEdit{
				{Range: Range{Start: Position{1, 2}, End: Position{3, 4}}, NewText: text, AnnotationID: "toolhost"},
				{Range: Range{Start: Position{5, 0}, End: Position{5, 0}}, NewText: ""},
			},
		}}
	}
	tests := []struct {
		name   string
		params ApplyWorkspaceEditParams
	}{
		{"empty", ApplyWorkspaceEditParams{}},
		{"no changes, empty list", ApplyWorkspaceEditParams{Edit: WorkspaceEdit{DocumentChanges: []DocumentChange{}}}},
		{"an edit of an open document", ApplyWorkspaceEditParams{Label: "Write a.txt", Edit: WorkspaceEdit{
			DocumentChanges:   []DocumentChange{edit("new text\n")},
			ChangeAnnotations: map[string]ChangeAnnotation{"toolhost": {Label: "Write a.txt", NeedsConfirmation: true}},
		}}},
		{"an edit of a closed document with no edits", ApplyWorkspaceEditParams{Edit: WorkspaceEdit{
			DocumentChanges: []DocumentChange{{TextDocumentEdit: &TextDocumentEdit{TextDocument: VersionedTextDocumentIdentifier{URI: "file:///x"}}}},
		}}},
		{"text that needs escaping", ApplyWorkspaceEditParams{Label: awkward, Edit: WorkspaceEdit{
			DocumentChanges:   []DocumentChange{edit(awkward)},
			ChangeAnnotations: map[string]ChangeAnnotation{"b": {Label: awkward, Description: awkward}, "a": {Label: "first"}},
		}}},
		{"a create and its content", ApplyWorkspaceEditParams{Label: "Create", Edit: WorkspaceEdit{
			DocumentChanges: []DocumentChange{
				{CreateFile: &CreateFile{Kind: "create", URI: "file:///n", AnnotationID: "toolhost"}},
				edit(strings.Repeat("line\n", 1000)),
			},
		}}},
		{"a create with options", ApplyWorkspaceEditParams{Edit: WorkspaceEdit{DocumentChanges: []DocumentChange{
			{CreateFile: &CreateFile{Kind: "create", URI: "file:///o", Options: &CreateFileOptions{Overwrite: true, IgnoreIfExists: true}}},
			{CreateFile: &CreateFile{Kind: "create", URI: "file:///p", Options: &CreateFileOptions{IgnoreIfExists: true}}},
			{CreateFile: &CreateFile{Kind: "create", URI: "file:///q", Options: &CreateFileOptions{}}},
		}}}},
		{"a delete", ApplyWorkspaceEditParams{Edit: WorkspaceEdit{DocumentChanges: []DocumentChange{
			{CreateFile: &CreateFile{Kind: "delete", URI: "file:///d"}},
		}}}},
		{"both set in one change", ApplyWorkspaceEditParams{Edit: WorkspaceEdit{DocumentChanges: []DocumentChange{
			{TextDocumentEdit: edit("x").TextDocumentEdit, CreateFile: &CreateFile{Kind: "create", URI: "file:///both"}},
		}}}},
		{"hints", ApplyWorkspaceEditParams{Edit: WorkspaceEdit{DocumentChanges: []DocumentChange{edit("y")}},
			Toolhost: &EditHints{Disk: map[string]string{"file:///z": "00ff", "file:///a": "<&>"}}}},
		{"empty hints", ApplyWorkspaceEditParams{Toolhost: &EditHints{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := json.Marshal(&tt.params)
			if err != nil {
				t.Fatal(err)
			}
			got := tt.params.AppendJSON([]byte("prefix:"))
			if !bytes.Equal(got, append([]byte("prefix:"), want...)) {
				t.Errorf("AppendJSON differs from json.Marshal:\n got %s\nwant prefix:%s", got, want)
			}
		})
	}
}
