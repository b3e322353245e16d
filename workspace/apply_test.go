package workspace_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/workspace"
	"github.com/toolhost/toolhost/workspace/workspacetest"
)

// savesButDoesNot declares savesAppliedEdits but never writes the disk, so
// Modify's check after the edit must write the file itself.
type savesButDoesNot struct{ *workspacetest.FakeEditor }

func (savesButDoesNot) SavesAppliedEdits() bool { return true }

func TestModify(t *testing.T) {
	const oldText = "package main\n\n// 日本語 😀 comment\nfunc main() { println(\"hi\") }\n"
	const newText = "package main\n\n// 日本語 😀 comment\nfunc main() { println(\"hello\") }\n"
	tests := []struct {
		name string
		// setup prepares the editor; it returns the editor Modify gets.
		setup func(t *testing.T, w *workspace.Workspace, fe *workspacetest.FakeEditor, path string) workspace.Editor
		// newFile makes the change create sub/dir/new.go.
		newFile bool
		// notRead skips the agent's Read of the existing file.
		notRead           bool
		needsConfirmation bool
		wantVersion       *int32
		wantErr           string
		check             func(t *testing.T, fe *workspacetest.FakeEditor, path string)
	}{
		{
			name: "no editor: written on disk",
			setup: func(*testing.T, *workspace.Workspace, *workspacetest.FakeEditor, string) workspace.Editor {
				return nil
			},
		},
		{
			name: "editor without applyEdit: written on disk, nothing sent",
			setup: func(_ *testing.T, _ *workspace.Workspace, fe *workspacetest.FakeEditor, _ string) workspace.Editor {
				fe.SetCanApplyEdit(false)
				return fe
			},
			check: func(t *testing.T, fe *workspacetest.FakeEditor, _ string) {
				if n := len(fe.Calls()); n != 0 {
					t.Errorf("%d applyEdit requests sent to an editor without the capability", n)
				}
			},
		},
		{
			name: "closed document: null version, server saves",
			setup: func(_ *testing.T, _ *workspace.Workspace, fe *workspacetest.FakeEditor, _ string) workspace.Editor {
				return fe
			},
		},
		{
			name: "open document: its version, buffer updated",
			setup: func(t *testing.T, _ *workspace.Workspace, fe *workspacetest.FakeEditor, path string) workspace.Editor {
				if err := fe.Open(path, oldText); err != nil {
					t.Fatal(err)
				}
				return fe
			},
			wantVersion: ptr(int32(1)),
			check: func(t *testing.T, fe *workspacetest.FakeEditor, path string) {
				if text, v, _ := fe.Buffer(path); text != newText || v != 2 {
					t.Errorf("editor buffer %q v%d, want the new text at v2", text, v)
				}
			},
		},
		{
			name: "client that saves",
			setup: func(_ *testing.T, _ *workspace.Workspace, fe *workspacetest.FakeEditor, _ string) workspace.Editor {
				fe.SetSaves(true)
				return fe
			},
		},
		{
			name: "client that claims to save but does not",
			setup: func(_ *testing.T, _ *workspace.Workspace, fe *workspacetest.FakeEditor, _ string) workspace.Editor {
				return savesButDoesNot{fe}
			},
		},
		{
			name:              "needs confirmation",
			needsConfirmation: true,
			setup: func(_ *testing.T, _ *workspace.Workspace, fe *workspacetest.FakeEditor, _ string) workspace.Editor {
				return fe
			},
		},
		{
			name:    "new file: CreateFile then insert, parents created",
			newFile: true,
			setup: func(_ *testing.T, _ *workspace.Workspace, fe *workspacetest.FakeEditor, _ string) workspace.Editor {
				return fe
			},
		},
		{
			name: "rejected: nothing written",
			setup: func(_ *testing.T, _ *workspace.Workspace, fe *workspacetest.FakeEditor, _ string) workspace.Editor {
				fe.Reject("the user rejected the edit")
				return fe
			},
			wantErr: "the user rejected the edit",
		},
		{
			name:    "rejected new file: no file, no folders",
			newFile: true,
			setup: func(_ *testing.T, _ *workspace.Workspace, fe *workspacetest.FakeEditor, _ string) workspace.Editor {
				fe.Reject("no thanks")
				return fe
			},
			wantErr: "no thanks",
			check: func(t *testing.T, _ *workspacetest.FakeEditor, path string) {
				if _, err := os.Stat(filepath.Join(filepath.Dir(path), "..", "..", "sub")); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("folders made for the rejected file remain: %v", err)
				}
			},
		},
		{
			name: "changed on disk since read: stale, nothing sent",
			setup: func(t *testing.T, _ *workspace.Workspace, fe *workspacetest.FakeEditor, path string) workspace.Editor {
				if err := os.WriteFile(path, []byte("someone else's work\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return fe
			},
			wantErr: "Read the file again",
		},
		{
			name:    "never read: refused, nothing sent",
			notRead: true,
			setup: func(_ *testing.T, _ *workspace.Workspace, fe *workspacetest.FakeEditor, _ string) workspace.Editor {
				return fe
			},
			wantErr: "has not been read in this session",
		},
		{
			name: "typed in the editor since read: stale",
			setup: func(t *testing.T, _ *workspace.Workspace, fe *workspacetest.FakeEditor, path string) workspace.Editor {
				if err := fe.Open(path, oldText); err != nil {
					t.Fatal(err)
				}
				if err := fe.Type(path, oldText+"// unsaved\n"); err != nil {
					t.Fatal(err)
				}
				return fe
			},
			wantErr: "changed in the editor",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			w := workspace.New(dir)
			path := filepath.Join(dir, "main.go")
			if err := os.WriteFile(path, []byte(oldText), 0o751); err != nil {
				t.Fatal(err)
			}
			if tt.newFile {
				path = filepath.Join(dir, "sub", "dir", "new.go")
			} else if !tt.notRead {
				w.MarkRead(path, []byte(oldText), nil, time.Now())
			}
			fe := workspacetest.NewFakeEditor(w)
			ed := tt.setup(t, w, fe, path)
			before, _ := os.ReadFile(path)

			var planned []byte
			done, err := w.Modify(context.Background(), ed, workspace.Modification{
				Path: path, Label: "Edit " + filepath.Base(path), Review: tt.needsConfirmation,
				Plan: func(current []byte) ([]byte, error) {
					planned = current
					return []byte(newText), nil
				},
			})

			if tt.check != nil {
				tt.check(t, fe, path)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Modify = %v, want an error containing %q", err, tt.wantErr)
				}
				after, _ := os.ReadFile(path)
				if string(after) != string(before) {
					t.Errorf("file changed by a failed change: %q", after)
				}
				if errors.Is(err, workspace.ErrStale) || errors.Is(err, workspace.ErrNotRead) {
					if n := len(fe.Calls()); n != 0 {
						t.Errorf("a stale change was still sent to the editor")
					}
					if planned != nil {
						t.Errorf("a stale change was planned")
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Modify: %v", err)
			}
			if tt.newFile != (planned == nil) || tt.newFile != (done.Old == nil) || !done.Changed || string(done.New) != newText {
				t.Errorf("planned from %q; Modified %+v", planned, done)
			}
			got, err := os.ReadFile(path)
			if err != nil || string(got) != newText {
				t.Fatalf("disk after Modify = %q, %v; want the new text", got, err)
			}
			if !tt.newFile {
				if st, _ := os.Stat(path); st.Mode().Perm() != 0o751 {
					t.Errorf("mode %v, want 0751 kept", st.Mode().Perm())
				}
			}
			if err := w.CheckFresh(path); err != nil {
				t.Errorf("CheckFresh after a successful change: %v (a second edit would need a re-Read)", err)
			}
			calls := fe.Calls()
			if ed == nil || !ed.CanApplyEdit() {
				return
			}
			if len(calls) != 1 {
				t.Fatalf("%d applyEdit requests, want 1", len(calls))
			}
			checkParams(t, calls[0], path, tt.newFile, tt.needsConfirmation, tt.wantVersion)
			if text, _, _ := fe.Buffer(path); text != newText {
				t.Errorf("editor holds %q, want the new text", text)
			}
		})
	}
}

func checkParams(t *testing.T, p *workspace.ApplyWorkspaceEditParams, path string, newFile, confirm bool, version *int32) {
	t.Helper()
	if !strings.Contains(p.Label, filepath.Base(path)) {
		t.Errorf("label %q does not name the file", p.Label)
	}
	if len(p.Edit.ChangeAnnotations) != 1 {
		t.Fatalf("annotations %+v, want one", p.Edit.ChangeAnnotations)
	}
	var annID string
	for id, a := range p.Edit.ChangeAnnotations {
		annID = id
		if a.NeedsConfirmation != confirm {
			t.Errorf("needsConfirmation = %v, want %v", a.NeedsConfirmation, confirm)
		}
		if !strings.Contains(a.Label, filepath.Base(path)) {
			t.Errorf("annotation label %q does not name the file", a.Label)
		}
	}
	changes := p.Edit.DocumentChanges
	if newFile {
		if len(changes) != 2 || changes[0].CreateFile == nil || changes[1].TextDocumentEdit == nil {
			t.Fatalf("new file: document changes %+v, want CreateFile then TextDocumentEdit", changes)
		}
		if changes[0].CreateFile.URI != workspace.PathToURI(path) || changes[0].CreateFile.Kind != "create" {
			t.Errorf("CreateFile %+v", changes[0].CreateFile)
		}
		return
	}
	if len(changes) != 1 || changes[0].TextDocumentEdit == nil {
		t.Fatalf("document changes %+v, want one TextDocumentEdit", changes)
	}
	tde := changes[0].TextDocumentEdit
	if (version == nil) != (tde.TextDocument.Version == nil) || (version != nil && *version != *tde.TextDocument.Version) {
		t.Errorf("textDocument.version = %v, want %v", tde.TextDocument.Version, version)
	}
	if len(tde.Edits) != 1 {
		t.Fatalf("edits %+v, want one small edit", tde.Edits)
	}
	e := tde.Edits[0]
	// "hi" → "hello" on line 3: the edit stays inside the string literal.
	if e.Range.Start.Line != 3 || e.Range.End.Line != 3 || len(e.NewText) > len("hello") || e.AnnotationID != annID {
		t.Errorf("edit %+v is not a minimal, annotated edit on line 3", e)
	}
}

// setTo is a plan that replaces the whole content with text.
func setTo(text string) func([]byte) ([]byte, error) {
	return func([]byte) ([]byte, error) { return []byte(text), nil }
}

func TestModifyTwiceWithoutReread(t *testing.T) {
	dir := t.TempDir()
	w := workspace.New(dir)
	path := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(path, []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fe := workspacetest.NewFakeEditor(w)
	if err := fe.Open(path, "one\n"); err != nil {
		t.Fatal(err)
	}
	w.MarkRead(path, []byte("one\n"), ptr(int32(1)), time.Now())
	for i, next := range []string{"two\n", "three\n"} {
		if _, err := w.Modify(context.Background(), fe, workspace.Modification{Path: path, Label: "Edit a.txt", Plan: setTo(next)}); err != nil {
			t.Fatalf("edit %d: %v", i, err)
		}
	}
	calls := fe.Calls()
	if v := calls[1].Edit.DocumentChanges[0].TextDocumentEdit.TextDocument.Version; v == nil || *v != 2 {
		t.Errorf("second edit sent version %v, want 2 (the version after the first edit)", v)
	}
}

func TestModifyCancelled(t *testing.T) {
	dir := t.TempDir()
	w := workspace.New(dir)
	path := filepath.Join(dir, "a.txt")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := w.Modify(ctx, workspacetest.NewFakeEditor(w), workspace.Modification{Path: path, Plan: setTo("x")})
	if err == nil {
		t.Fatal("Modify with a cancelled context succeeded")
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("file written despite cancellation")
	}
}

func ptr[T any](v T) *T { return &v }

// TestModifyConcurrentNoLostWork starts two changes of the same content at
// once: each is planned from what the other left, so the second sees the
// first's result, and a plan that expects the old text fails instead of
// overwriting it.
func TestModifyConcurrentNoLostWork(t *testing.T) {
	for _, withEditor := range []bool{false, true} {
		dir := t.TempDir()
		w := workspace.New(dir)
		path := filepath.Join(dir, "a.txt")
		if err := os.WriteFile(path, []byte("base\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var ed workspace.Editor
		if withEditor {
			ed = workspacetest.NewFakeEditor(w)
		}
		w.MarkRead(path, []byte("base\n"), nil, time.Now())
		results := make(chan error, 2)
		for _, text := range []string{"first\n", "second\n"} {
			go func() {
				_, err := w.Modify(context.Background(), ed, workspace.Modification{Path: path, Plan: func(cur []byte) ([]byte, error) {
					if string(cur) != "base\n" {
						return nil, errors.New("base is gone")
					}
					return []byte(text), nil
				}})
				results <- err
			}()
		}
		var ok, refused int
		for range 2 {
			err := <-results
			var pe *workspace.PlanError
			switch {
			case err == nil:
				ok++
			case errors.As(err, &pe):
				refused++
			default:
				t.Fatalf("unexpected error: %v", err)
			}
		}
		if ok != 1 || refused != 1 {
			t.Errorf("editor=%v: %d applied, %d refused; want one each", withEditor, ok, refused)
		}
	}
}

// The plan sees what the user sees (an open buffer's unsaved text); a plan
// that changes nothing sends nothing, and a plan's refusal writes nothing.
func TestModifyPlan(t *testing.T) {
	tests := []struct {
		name        string
		plan        func([]byte) ([]byte, error)
		wantChanged bool
		wantErr     string
		wantText    string
	}{
		{name: "planned from the buffer", plan: func(cur []byte) ([]byte, error) { return append(cur, "more\n"...), nil }, wantChanged: true, wantText: "buffer\nmore\n"},
		{name: "nothing to change", plan: func(cur []byte) ([]byte, error) { return cur, nil }, wantText: "buffer\n"},
		{name: "refused", plan: func([]byte) ([]byte, error) { return nil, errors.New("no such cell") }, wantErr: "no such cell", wantText: "buffer\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			w := workspace.New(dir)
			path := filepath.Join(dir, "a.txt")
			if err := os.WriteFile(path, []byte("disk\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			fe := workspacetest.NewFakeEditor(w)
			if err := fe.Open(path, "buffer\n"); err != nil {
				t.Fatal(err)
			}
			w.MarkRead(path, []byte("buffer\n"), ptr(int32(1)), time.Now())
			done, err := w.Modify(context.Background(), fe, workspace.Modification{Path: path, Label: "Edit a.txt", Plan: tt.plan})
			if tt.wantErr != "" {
				var pe *workspace.PlanError
				if !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Modify = %v, want a PlanError with %q", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if done.Changed != tt.wantChanged {
				t.Errorf("Changed = %v, want %v", done.Changed, tt.wantChanged)
			}
			if n := len(fe.Calls()); n != 0 != tt.wantChanged {
				t.Errorf("%d applyEdit requests with Changed %v", n, tt.wantChanged)
			}
			if text, _, _ := fe.Buffer(path); text != tt.wantText {
				t.Errorf("buffer %q, want %q", text, tt.wantText)
			}
		})
	}
}

// savesItsOwn declares savesAppliedEdits and writes the disk's own content
// plus the change, as a client does for a buffer with unsaved typing.
type savesItsOwn struct {
	*workspacetest.FakeEditor
	path, content string
}

func (savesItsOwn) SavesAppliedEdits() bool { return true }

func (s savesItsOwn) ApplyEdit(ctx context.Context, p *workspace.ApplyWorkspaceEditParams) (*workspace.ApplyWorkspaceEditResult, error) {
	res, err := s.FakeEditor.ApplyEdit(ctx, p)
	if err == nil && res.Applied {
		err = os.WriteFile(s.path, []byte(s.content), 0o644)
	}
	return res, err
}

// The server leaves what such a client wrote: its buffer had the user's
// unsaved typing, which must not reach the disk.
func TestApplyChangeKeepsWhatTheClientWrote(t *testing.T) {
	dir := t.TempDir()
	w := workspace.New(dir)
	path := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(path, []byte("one\nfour\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fe := workspacetest.NewFakeEditor(w)
	const typed = "one\nmy unsaved note\nfour\n"
	if err := fe.Open(path, typed); err != nil {
		t.Fatal(err)
	}
	ed := savesItsOwn{FakeEditor: fe, path: path, content: "one\nFOUR\n"}
	w.MarkRead(path, []byte(typed), ptr(int32(1)), time.Now())
	if _, err := w.Modify(context.Background(), ed, workspace.Modification{
		Path: path, Label: "Edit a.txt",
		Plan: func([]byte) ([]byte, error) { return []byte("one\nmy unsaved note\nFOUR\n"), nil },
	}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "one\nFOUR\n" {
		t.Errorf("disk = %q, want the client's write (the disk's content plus the change)", got)
	}
}
