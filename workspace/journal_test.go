package workspace_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/workspace"
	"github.com/toolhost/toolhost/workspace/workspacetest"
)

// journalFixture is a workspace with a journal in its own folder, and the
// agent's changes made through Modify as a tool makes them.
type journalFixture struct {
	t    *testing.T
	dir  string
	jdir string
	ws   *workspace.Workspace
	now  time.Time
	opts workspace.JournalOptions
}

func newJournalFixture(t *testing.T, opts workspace.JournalOptions) *journalFixture {
	f := &journalFixture{t: t, dir: t.TempDir(), jdir: filepath.Join(t.TempDir(), "changes"), now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	opts.Now = func() time.Time { return f.now }
	f.opts = opts
	f.restart()
	return f
}

// restart is a new server on the same workspace: a new workspace and
// journal over the same folders, nothing carried in memory.
func (f *journalFixture) restart() {
	f.ws = workspace.New(f.dir)
	f.ws.SetJournal(workspace.OpenJournal(f.jdir, f.opts))
}

func (f *journalFixture) path(name string) string { return filepath.Join(f.dir, name) }

func (f *journalFixture) write(name, text string) {
	if err := os.WriteFile(f.path(name), []byte(text), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *journalFixture) read(name string) string {
	data, err := os.ReadFile(f.path(name))
	if os.IsNotExist(err) {
		return "<none>"
	}
	if err != nil {
		f.t.Fatal(err)
	}
	return string(data)
}

// change is one Modify of name to text by the call and turn given.
func (f *journalFixture) change(ed workspace.Editor, turn, call, name, text string) {
	f.t.Helper()
	path := f.path(name)
	if data, err := os.ReadFile(path); err == nil {
		f.ws.MarkRead(path, data, nil, time.Now())
	}
	ctx := workspace.WithOrigin(context.Background(), workspace.Origin{CallID: call, Tool: "Write", Agent: "Claude Code", Turn: turn})
	if _, err := f.ws.Modify(ctx, ed, workspace.Modification{Path: path, Label: "Write " + name, Plan: setTo(text)}); err != nil {
		f.t.Fatalf("change of %s: %v", name, err)
	}
}

func TestRewind(t *testing.T) {
	tests := []struct {
		name string
		opts workspace.JournalOptions
		// editor is true to rewind through a fake editor (else on disk).
		editor bool
		// act makes the agent's changes and whatever happens after them.
		act func(f *journalFixture, ed workspace.Editor)
		sel func(f *journalFixture) workspace.Selection
		// want is each file's content after the rewind ("<none>": absent).
		want     map[string]string
		restored int
		// kept are substrings of the kept files' reasons, by file.
		kept map[string]string
		// wantErr is a substring of Rewind's error.
		wantErr string
	}{
		{
			name:   "a three-file turn through the editor, one file created",
			editor: true,
			act: func(f *journalFixture, ed workspace.Editor) {
				f.change(ed, "t1", "c1", "a.txt", "A2\n")
				f.change(ed, "t1", "c2", "b.txt", "B2\n")
				f.change(ed, "t1", "c3", "new.txt", "N\n")
			},
			want:     map[string]string{"a.txt": "A1\n", "b.txt": "B1\n", "new.txt": "<none>"},
			restored: 3,
		},
		{
			name:   "a file changed after the turn is kept, the rest rewound",
			editor: true,
			act: func(f *journalFixture, ed workspace.Editor) {
				f.change(ed, "t1", "c1", "a.txt", "A2\n")
				f.change(ed, "t1", "c2", "b.txt", "B2\n")
				f.write("b.txt", "B2 and mine\n")
			},
			want:     map[string]string{"a.txt": "A1\n", "b.txt": "B2 and mine\n"},
			restored: 1,
			kept:     map[string]string{"b.txt": "you changed b.txt after the turn"},
		},
		{
			name: "the last turn only, after a restart",
			act: func(f *journalFixture, ed workspace.Editor) {
				f.change(ed, "t1", "c1", "a.txt", "A2\n")
				f.change(ed, "t2", "c2", "a.txt", "A3\n")
				f.change(ed, "t2", "c3", "b.txt", "B2\n")
				f.restart()
			},
			want:     map[string]string{"a.txt": "A2\n", "b.txt": "B1\n"},
			restored: 2,
		},
		{
			name: "one file of a turn",
			act: func(f *journalFixture, ed workspace.Editor) {
				f.change(ed, "t1", "c1", "a.txt", "A2\n")
				f.change(ed, "t1", "c2", "b.txt", "B2\n")
			},
			sel: func(f *journalFixture) workspace.Selection {
				return workspace.Selection{Turn: "t1", Path: f.path("b.txt")}
			},
			want:     map[string]string{"a.txt": "A2\n", "b.txt": "B1\n"},
			restored: 1,
		},
		{
			name: "one call; a later call of the same file keeps it",
			act: func(f *journalFixture, ed workspace.Editor) {
				f.change(ed, "t1", "c1", "a.txt", "A2\n")
				f.change(ed, "t1", "c2", "b.txt", "B2\n")
				f.change(ed, "t1", "c3", "a.txt", "A3\n")
			},
			sel:  func(*journalFixture) workspace.Selection { return workspace.Selection{Call: "c1"} },
			want: map[string]string{"a.txt": "A3\n", "b.txt": "B2\n"},
			kept: map[string]string{"a.txt": "you changed a.txt after the turn"},
		},
		{
			name: "a turn without an id ends at a pause",
			act: func(f *journalFixture, ed workspace.Editor) {
				f.change(ed, "", "c1", "a.txt", "A2\n")
				f.now = f.now.Add(time.Minute)
				f.change(ed, "", "c2", "b.txt", "B2\n")
				f.now = f.now.Add(3 * time.Minute)
				f.change(ed, "", "c3", "a.txt", "A3\n")
			},
			// The last turn is c3 alone.
			want:     map[string]string{"a.txt": "A2\n", "b.txt": "B2\n"},
			restored: 1,
		},
		{
			name: "a file over the per-file cap is listed but not rewound",
			opts: workspace.JournalOptions{FileMax: 4},
			act: func(f *journalFixture, ed workspace.Editor) {
				f.write("a.txt", "A1 is long\n")
				f.change(ed, "t1", "c1", "a.txt", "A2\n")
			},
			want: map[string]string{"a.txt": "A2\n"},
			kept: map[string]string{"a.txt": "not kept"},
		},
		{
			name: "the oldest turns are dropped past the cap",
			opts: workspace.JournalOptions{TurnsMax: 1},
			act: func(f *journalFixture, ed workspace.Editor) {
				f.change(ed, "t1", "c1", "a.txt", "A2\n")
				f.change(ed, "t2", "c2", "b.txt", "B2\n")
			},
			sel:     func(*journalFixture) workspace.Selection { return workspace.Selection{Turn: "t1"} },
			want:    map[string]string{"a.txt": "A2\n", "b.txt": "B2\n"},
			wantErr: "not in the journal",
		},
		{
			name:   "a second rewind finds the files as they were",
			editor: true,
			act: func(f *journalFixture, ed workspace.Editor) {
				f.change(ed, "t1", "c1", "a.txt", "A2\n")
				if _, err := f.ws.Rewind(context.Background(), ed, workspace.Selection{}); err != nil {
					f.t.Fatal(err)
				}
			},
			want: map[string]string{"a.txt": "A1\n"},
			kept: map[string]string{"a.txt": "already holds what it held before"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newJournalFixture(t, tc.opts)
			f.write("a.txt", "A1\n")
			f.write("b.txt", "B1\n")
			var ed workspace.Editor
			var fe *workspacetest.FakeEditor
			if tc.editor {
				fe = workspacetest.NewFakeEditor(f.ws)
				ed = fe
			}
			tc.act(f, ed)
			if fe != nil && fe.Calls() != nil {
				// The editor of the changes is not the rewind's: count anew.
				fe = workspacetest.NewFakeEditor(f.ws)
				ed = fe
			}
			sel := workspace.Selection{}
			if tc.sel != nil {
				sel = tc.sel(f)
			}
			got, err := f.ws.Rewind(context.Background(), ed, sel)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Rewind error %v, want one containing %q", err, tc.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			for name, want := range tc.want {
				if got := f.read(name); got != want {
					t.Errorf("%s holds %q after the rewind, want %q", name, got, want)
				}
			}
			if len(got.Restored) != tc.restored {
				t.Errorf("restored %v, want %d files (message %q)", got.Restored, tc.restored, got.Message)
			}
			if len(got.Kept) != len(tc.kept) {
				t.Errorf("kept %+v, want %d", got.Kept, len(tc.kept))
			}
			for _, k := range got.Kept {
				want, ok := tc.kept[filepath.Base(k.Path)]
				if !ok || !strings.Contains(k.Reason, want) || !strings.Contains(got.Message, want) {
					t.Errorf("kept %s because %q (message %q), want %q", k.Path, k.Reason, got.Message, want)
				}
			}
			if fe != nil && tc.restored > 0 {
				// One edit in the editor: one undo step brings it all back.
				if n := len(fe.Calls()); n != 1 {
					t.Errorf("the rewind sent %d applyEdit requests, want 1", n)
				} else if n := len(fe.Calls()[0].Edit.DocumentChanges); n != tc.restored {
					t.Errorf("the rewind's edit has %d document changes, want %d", n, tc.restored)
				}
			}
		})
	}
}

func TestJournalTurns(t *testing.T) {
	f := newJournalFixture(t, workspace.JournalOptions{})
	f.write("a.txt", "A1\n")
	f.change(nil, "t1", "c1", "a.txt", "A2\n")
	f.change(nil, "t1", "c2", "a.txt", "A3\n")
	f.change(nil, "t2", "c3", "n.txt", "N\n")
	f.restart()
	turns := f.ws.Journal().Turns(func(path, before, after string) string {
		if f.ws.CurrentHash(context.Background(), path) == after {
			return "asLeft"
		}
		return "changedSince"
	})
	if len(turns) != 2 || turns[0].ID != "t2" || turns[1].ID != "t1" {
		t.Fatalf("turns %+v, want t2 then t1", turns)
	}
	t1 := turns[1]
	if t1.Agent != "Claude Code" || len(t1.Calls) != 2 || len(t1.Files) != 1 {
		t.Fatalf("turn t1 %+v: want Claude Code's 2 calls of 1 file", t1)
	}
	file := t1.Files[0]
	if file.Before != workspace.Hash([]byte("A1\n")) || file.After != workspace.Hash([]byte("A3\n")) || file.State != "asLeft" || !file.Rewindable {
		t.Errorf("t1's file %+v: want A1 → A3, as left, rewindable", file)
	}
	if c := t1.Calls[0]; c.ID != "c1" || c.Tool != "Write" || c.Files[0].State != "changedSince" {
		t.Errorf("t1's first call %+v: want c1 by Write, its file changed since (by c2)", c)
	}
	if n := turns[0].Files[0]; !n.Created {
		t.Errorf("t2's file %+v: want created", n)
	}
}
