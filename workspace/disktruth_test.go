package workspace_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/workspace"
	"github.com/toolhost/toolhost/workspace/workspacetest"
)

// readLikeRead reads path as the Read tool does and records the read.
func readLikeRead(t *testing.T, ws *workspace.Workspace, path string) string {
	t.Helper()
	start := time.Now()
	data, version, err := ws.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	ws.MarkRead(path, data, version, start)
	return string(data)
}

// appendLine is a plan that adds a line at the end, as an Edit would.
func appendLine(line string) func([]byte) ([]byte, error) {
	return func(cur []byte) ([]byte, error) { return append(append([]byte(nil), cur...), line...), nil }
}

// TestDiskChangedUnderOpenDocument is the lost-change bug: a document open
// in the editor, the disk rewritten under it (by Bash, a formatter, git),
// then a change. The disk's bytes must survive in every case: planned on
// when the buffer had no unsaved changes, refused when it had.
func TestDiskChangedUnderOpenDocument(t *testing.T) {
	const (
		opened  = "package main\n\nfunc old() {}\n"
		byBash  = "package main\n\nfunc formatted() {}\n"
		typing  = "package main\n\nfunc old() { typed() }\n"
		addLine = "// added\n"
	)
	tests := []struct {
		name string
		// applyEdit and saves are the editor's capabilities.
		applyEdit, saves bool
		// dirty types in the buffer before the disk changes.
		dirty bool
		// readBefore reads the file before the disk changes (the model's
		// view is then the old buffer), else after.
		readBefore bool
		// deleteDisk removes the file instead of rewriting it.
		deleteDisk bool
		// wantDisk is the disk after the change; "" with wantConflict.
		wantDisk     string
		wantConflict bool
	}{
		{name: "clean buffer, editor applies edits", applyEdit: true, wantDisk: byBash + addLine},
		{name: "clean buffer, editor applies and saves", applyEdit: true, saves: true, wantDisk: byBash + addLine},
		{name: "clean buffer, server's own write", wantDisk: byBash + addLine},
		{name: "clean buffer, read before the disk changed", applyEdit: true, readBefore: true, wantDisk: byBash + addLine},
		{name: "unsaved typing, editor applies edits", applyEdit: true, dirty: true, wantConflict: true},
		{name: "unsaved typing, editor saves", applyEdit: true, saves: true, dirty: true, wantConflict: true},
		{name: "unsaved typing, server's own write", dirty: true, wantConflict: true},
		{name: "unsaved typing, file deleted on disk", applyEdit: true, dirty: true, deleteDisk: true, wantConflict: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "main.go")
			if err := os.WriteFile(path, []byte(opened), 0o644); err != nil {
				t.Fatal(err)
			}
			ws := workspace.New(dir)
			ed := workspacetest.NewFakeEditor(ws)
			ed.SetCanApplyEdit(tc.applyEdit)
			ed.SetSaves(tc.saves)
			if err := ed.Open(path, opened); err != nil {
				t.Fatal(err)
			}
			if tc.dirty {
				if err := ed.Type(path, typing); err != nil {
					t.Fatal(err)
				}
			}
			if tc.readBefore {
				readLikeRead(t, ws, path)
			}
			if tc.deleteDisk {
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(path, []byte(byBash), 0o644); err != nil {
				t.Fatal(err)
			}
			if !tc.readBefore {
				got := readLikeRead(t, ws, path)
				if !tc.dirty && got != byBash {
					t.Errorf("Read under an unmodified buffer = %q, want the disk's %q", got, byBash)
				}
			}
			plan := appendLine(addLine)
			done, err := ws.Modify(context.Background(), ed, workspace.Modification{
				Path: path, Label: "Edit main.go", Plan: plan,
				// As Edit does: a file changed since the Read takes the
				// change when it still applies.
				Changed: plan,
			})
			disk, rerr := os.ReadFile(path)
			if tc.wantConflict {
				var ce *workspace.ConflictError
				if !errors.As(err, &ce) {
					t.Fatalf("Modify = %v, want a *ConflictError", err)
				}
				switch {
				case tc.deleteDisk && !errors.Is(rerr, fs.ErrNotExist):
					t.Errorf("the deleted file came back: %q", disk)
				case !tc.deleteDisk && string(disk) != byBash:
					t.Errorf("disk = %q, want Bash's %q kept", disk, byBash)
				}
				if text, _, _ := ed.Buffer(path); text != typing {
					t.Errorf("buffer = %q, want the user's typing %q kept", text, typing)
				}
				return
			}
			if err != nil {
				t.Fatalf("Modify: %v", err)
			}
			if string(disk) != tc.wantDisk {
				t.Errorf("disk = %q, want %q (Bash's change and the edit)", disk, tc.wantDisk)
			}
			if !done.DiskAhead {
				t.Errorf("DiskAhead not set: the result cannot say the file had changed on disk")
			}
			if tc.applyEdit {
				if text, _, _ := ed.Buffer(path); text != tc.wantDisk {
					t.Errorf("buffer = %q, want it brought to %q", text, tc.wantDisk)
				}
				calls := ed.Calls()
				if v := calls[len(calls)-1].Edit.DocumentChanges[0].TextDocumentEdit.TextDocument.Version; v == nil {
					t.Errorf("the edit of an open document carries no version")
				}
			}
			// Everything is in step again: a second change plans on the
			// result of the first.
			if _, err := ws.Modify(context.Background(), ed, workspace.Modification{Path: path, Plan: appendLine("// again\n")}); err != nil {
				t.Fatalf("second Modify: %v", err)
			}
			if disk, _ := os.ReadFile(path); string(disk) != tc.wantDisk+"// again\n" {
				t.Errorf("after a second change disk = %q", disk)
			}
		})
	}
}

// TestOpenDocumentTruth covers what does not count as a change on disk: a
// touch, a save of the same text, an editor that reloaded the file.
func TestOpenDocumentTruth(t *testing.T) {
	const opened, typing = "a\nb\n", "a\nb typed\n"
	tests := []struct {
		name string
		// act changes things after the document opened with opened.
		act      func(t *testing.T, ws *workspace.Workspace, ed *workspacetest.FakeEditor, path string)
		wantRead string
		// wantConflict: a change is refused.
		wantConflict bool
	}{
		{
			name: "touch under unsaved typing is no change",
			act: func(t *testing.T, _ *workspace.Workspace, ed *workspacetest.FakeEditor, path string) {
				must(t, ed.Type(path, typing))
				future := time.Now().Add(time.Hour)
				must(t, os.Chtimes(path, future, future))
			},
			wantRead: typing,
		},
		{
			name: "the editor reloaded the changed file",
			act: func(t *testing.T, _ *workspace.Workspace, ed *workspacetest.FakeEditor, path string) {
				must(t, os.WriteFile(path, []byte("new\n"), 0o644))
				must(t, ed.Type(path, "new\n"))
			},
			wantRead: "new\n",
		},
		{
			name: "typing undone back to the opened text is unmodified",
			act: func(t *testing.T, _ *workspace.Workspace, ed *workspacetest.FakeEditor, path string) {
				must(t, ed.Type(path, typing))
				must(t, ed.Type(path, opened))
				must(t, os.WriteFile(path, []byte("disk\n"), 0o644))
			},
			wantRead: "disk\n",
		},
		{
			name: "saved, then the disk changed under the saved buffer",
			act: func(t *testing.T, ws *workspace.Workspace, ed *workspacetest.FakeEditor, path string) {
				must(t, ed.Type(path, typing))
				must(t, os.WriteFile(path, []byte(typing), 0o644))
				must(t, ws.Save(workspace.PathToURI(path)))
				must(t, os.WriteFile(path, []byte("disk\n"), 0o644))
			},
			wantRead: "disk\n",
		},
		{
			name: "a byte-order mark on disk is not a difference",
			act: func(t *testing.T, _ *workspace.Workspace, ed *workspacetest.FakeEditor, path string) {
				// Reopened over a file with a mark: the editor's text has none.
				must(t, os.WriteFile(path, []byte("\xEF\xBB\xBF"+opened), 0o644))
				must(t, ed.Open(path, opened))
				must(t, os.WriteFile(path, []byte("\xEF\xBB\xBFdisk\n"), 0o644))
			},
			wantRead: "\xEF\xBB\xBFdisk\n",
		},
		{
			name: "opened with text the disk does not hold counts as unsaved",
			act: func(t *testing.T, _ *workspace.Workspace, ed *workspacetest.FakeEditor, path string) {
				// A restored unsaved buffer: opened with text other than the disk's.
				must(t, ed.Open(path, typing))
				must(t, os.WriteFile(path, []byte("disk\n"), 0o644))
			},
			wantRead:     typing,
			wantConflict: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f.txt")
			must(t, os.WriteFile(path, []byte(opened), 0o644))
			ws := workspace.New(dir)
			ed := workspacetest.NewFakeEditor(ws)
			must(t, ed.Open(path, opened))
			tc.act(t, ws, ed, path)
			if got := readLikeRead(t, ws, path); got != tc.wantRead {
				t.Errorf("Read = %q, want %q", got, tc.wantRead)
			}
			before, _ := os.ReadFile(path)
			_, err := ws.Modify(context.Background(), ed, workspace.Modification{Path: path, Plan: appendLine("x\n")})
			var ce *workspace.ConflictError
			if got := errors.As(err, &ce); got != tc.wantConflict {
				t.Fatalf("Modify = %v, want conflict %v", err, tc.wantConflict)
			}
			after, _ := os.ReadFile(path)
			if tc.wantConflict && string(after) != string(before) {
				t.Errorf("refused change wrote the disk: %q", after)
			}
			if !tc.wantConflict && !strings.HasSuffix(string(after), "x\n") {
				t.Errorf("disk = %q, want the change on it", after)
			}
		})
	}
}

// racingEditor applies edits with a FakeEditor, and before it answers a
// command rewrites the file on disk.
type racingEditor struct {
	*workspacetest.FakeEditor
	path, byBash string
}

func (r racingEditor) ApplyEdit(ctx context.Context, p *workspace.ApplyWorkspaceEditParams) (*workspace.ApplyWorkspaceEditResult, error) {
	res, err := r.FakeEditor.ApplyEdit(ctx, p)
	if werr := os.WriteFile(r.path, []byte(r.byBash), 0o644); werr != nil {
		return nil, werr
	}
	return res, err
}

// TestServerWriteKeepsDiskChangedDuringChange: the editor applied the
// change (and did not save it); a command rewrote the file meanwhile. The
// server must not write the change over the command's bytes.
func TestServerWriteKeepsDiskChangedDuringChange(t *testing.T) {
	for _, open := range []bool{false, true} {
		t.Run(map[bool]string{false: "not open", true: "open"}[open], func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f.txt")
			must(t, os.WriteFile(path, []byte("a\n"), 0o644))
			ws := workspace.New(dir)
			fake := workspacetest.NewFakeEditor(ws)
			if open {
				must(t, fake.Open(path, "a\n"))
			}
			readLikeRead(t, ws, path)
			ed := racingEditor{FakeEditor: fake, path: path, byBash: "from bash\n"}
			_, err := ws.Modify(context.Background(), ed, workspace.Modification{Path: path, Plan: appendLine("b\n")})
			var ce *workspace.ConflictError
			if !errors.As(err, &ce) {
				t.Errorf("Modify = %v, want a *ConflictError", err)
			}
			if disk, _ := os.ReadFile(path); string(disk) != "from bash\n" {
				t.Errorf("disk = %q, want the command's bytes kept", disk)
			}
		})
	}
}
