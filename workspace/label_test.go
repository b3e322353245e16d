package workspace

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestEditLabelShowsInvisibleCharacters: the label of a workspace/applyEdit
// (shown by the editor in its review and in warnings) names the file with
// its escapes and bidirectional overrides written out.
func TestEditLabelShowsInvisibleCharacters(t *testing.T) {
	dir := t.TempDir()
	w := New(dir)
	name := "notes\u202etxt.exe\x1b[8m"
	for _, old := range [][]byte{nil, []byte("old\n")} {
		params, _ := w.editParams(Modification{Path: filepath.Join(dir, name), Label: "Write " + name}, old, []byte("new\n"), docTruth{})
		shown := params.Label + params.Edit.ChangeAnnotations[annotationID].Label
		if strings.ContainsAny(shown, "\u202e\x1b") || !strings.Contains(params.Label, `\u202e`) {
			t.Errorf("label %q, annotation %q: want the invisible characters written out", params.Label, params.Edit.ChangeAnnotations[annotationID].Label)
		}
	}
}
