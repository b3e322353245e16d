// Package fs holds the file tools: Read, Write, Edit, NotebookEdit and Diff.
// Their names and input schemas follow Claude Code's. Reads see the editor's
// unsaved buffers; changes go through workspace.Modify, so they reach
// the editor as workspace/applyEdit (or the disk, atomically) only when the
// file is as the agent last read it.
package fs

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unsafe"

	"github.com/toolhost/toolhost/internal/udiff"
	"github.com/toolhost/toolhost/internal/visible"
	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

// maxDiffChars caps the unified diff carried in a Write or Edit result; the
// change itself is never cut.
const maxDiffChars = 20_000

// leadsOutside reports a read of the current content that failed because
// the path leads outside the workspace through a link. The change is then
// the permission checker's to refuse (a write through such a link is
// refused in every mode, with a message naming where it leads), so the
// precheck leaves the call to it; the jailed read still refuses it if the
// call ever ran.
func leadsOutside(err error) bool {
	var esc *workspace.EscapeError
	return errors.As(err, &esc)
}

// resolve turns a file_path from the input into an absolute path, or an
// error result saying what is wrong with it.
func resolve(ws *workspace.Workspace, field, p string) (string, *tools.Result) {
	abs, err := ws.Resolve(p)
	if err != nil {
		return "", tools.ErrorResult("%s: %v", field, err)
	}
	return abs, nil
}

// displayName is how a path appears in diff headers and editor labels:
// relative to the first root when inside it, else absolute, and shown as
// visible.Name shows it (a name holding a newline must not add a line of
// its own to a diff).
func displayName(ws *workspace.Workspace, abs string) string {
	if rel, err := filepath.Rel(ws.Root(), abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return visible.Name(filepath.ToSlash(rel))
	}
	return visible.Name(abs)
}

// unifiedDiff is the diff of a change, cut at maxDiffChars with a note.
// Only the hunks shown are built (up to maxPatchBytes), and the contents are
// viewed, not copied: a preview of a 5 MB rewrite shows 20,000 characters.
func unifiedDiff(ws *workspace.Workspace, abs string, old, new []byte) string {
	o, n := unsafe.String(unsafe.SliceData(old), len(old)), unsafe.String(unsafe.SliceData(new), len(new))
	hunks, omitted := udiff.HunksOf(o, n, udiff.Changes(o, n), maxPatchBytes)
	return renderDiff(ws, abs, old == nil, hunks, omitted)
}

// maxPatchBytes caps the structuredPatch of a Write or Edit result (its
// lines, each counted with a newline): a rewrite of megabytes would
// otherwise send its whole old and new text back as hunks. A cut patch is
// marked with structuredPatchTruncated; the change itself is never cut.
const maxPatchBytes = 1 << 20

// changeDiff is the diff of a change as text (cut as unifiedDiff cuts it)
// and as hunks (a result's structuredPatch, cut at maxPatchBytes), from
// done's line diff when the change went to the editor, else diffed here:
// once either way.
//
// The contents are viewed as strings without copies (a large file would be
// copied twice more): callers never change old and new afterwards, and the
// hunks, whose lines point into them, live no longer than the result.
func changeDiff(ws *workspace.Workspace, abs string, done workspace.Modified) (diff string, hunks []udiff.Hunk, truncated bool) {
	old := unsafe.String(unsafe.SliceData(done.Old), len(done.Old))
	new := unsafe.String(unsafe.SliceData(done.New), len(done.New))
	changes := done.Changes
	if changes == nil {
		changes = udiff.Changes(old, new)
	}
	hunks, omitted := udiff.HunksOf(old, new, changes, maxPatchBytes)
	return renderDiff(ws, abs, done.Old == nil, hunks, omitted), hunks, omitted > 0
}

// maxEchoBytes caps the texts a Write or Edit result echoes back as Claude
// Code's do (originalFile, Write's content): past it the field is left out
// and <field>Omitted is true, so a change of a 45 MB file does not send the
// file back whole.
const maxEchoBytes = 1 << 20

// echoText sets fields[name] to text, or fields[name+"Omitted"] past
// maxEchoBytes.
func echoText[T string | []byte](fields map[string]any, name string, text T) {
	if len(text) > maxEchoBytes {
		fields[name+"Omitted"] = true
		return
	}
	fields[name] = string(text)
}

// patchResult is the structured form of a change's hunks.
func patchResult(fields map[string]any, hunks []udiff.Hunk, truncated bool) map[string]any {
	fields["structuredPatch"] = hunks
	if truncated {
		fields["structuredPatchTruncated"] = true
	}
	return fields
}

// renderDiff renders hunks cut at maxDiffChars; omitted is the size of
// lines already left out of the hunks.
func renderDiff(ws *workspace.Workspace, abs string, created bool, hunks []udiff.Hunk, omitted int) string {
	return renderNamedDiff(displayName(ws, abs), created, hunks, omitted)
}

// renderNamedDiff is renderDiff under a name of the caller's (a notebook
// cell's).
func renderNamedDiff(name string, created bool, hunks []udiff.Hunk, omitted int) string {
	oldName := "a/" + name
	if created {
		oldName = "/dev/null"
	}
	d, total := udiff.RenderCut(oldName, "b/"+name, hunks, maxDiffChars)
	total += omitted
	if total > len(d) {
		d += fmt.Sprintf("[diff cut at %d of %d characters]\n", len(d), total)
	}
	return d
}

// resultError carries a plan's refusal that is already a whole result (a
// missing file with its look-alikes) through workspace.Modify.
type resultError struct{ res *tools.Result }

func (e resultError) Error() string { return e.res.Text() }

// changeResult turns an error of workspace.Modify into what the model sees:
// a stale file, a plan that does not fit the file or a refused edit is
// something it can act on; anything else is an infrastructure failure.
func changeResult(err error) (*tools.Result, error) {
	var whole resultError
	var stale *workspace.StaleError
	var plan *workspace.PlanError
	var rejected *workspace.RejectedError
	var conflict *workspace.ConflictError
	switch {
	case errors.As(err, &whole):
		return whole.res, nil
	case errors.As(err, &stale):
		return tools.ErrorResult("%v", stale), nil
	case errors.As(err, &conflict):
		return tools.ErrorResult("%v", conflict), nil
	case errors.As(err, &plan):
		return tools.ErrorResult("%v", plan), nil
	case errors.As(err, &rejected):
		return tools.ErrorResult("%v. Ask the user what they want changed, or try a different change.", rejected), nil
	case workspace.Refused(err):
		return tools.ErrorResult("%v.", err), nil
	}
	return nil, err
}

// diskAheadNote is what a change result says when the file was open in the
// editor with an out-of-date buffer: the disk had changed under it (a
// command, a formatter, git), the change was made to the disk's content, and
// the editor's buffer was brought up to it. "" otherwise.
func diskAheadNote(done workspace.Modified) string {
	if !done.DiskAhead {
		return ""
	}
	return " Note: the file had changed on disk since the editor loaded it (its buffer had no unsaved changes); the change was made to the disk's content, which was kept, and the editor's buffer was brought up to date."
}

// currentSettings returns the live settings, or the defaults without a source.
func currentSettings(get func() *settings.Settings) *settings.Settings {
	if get != nil {
		if s := get(); s != nil {
			return s
		}
	}
	return settings.Defaults()
}

// countLines counts the lines of s as Read numbers them.
func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
