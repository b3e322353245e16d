package workspace_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/workspace"
	"github.com/toolhost/toolhost/workspace/workspacetest"
)

// TestCommandChangesJournaled: what a command changed in open files is a
// change of its call and turn, and the turn's rewind restores it.
func TestCommandChangesJournaled(t *testing.T) {
	tests := []struct {
		name string
		// open is the buffer text of a.txt ("" leaves it closed); the
		// disk holds "disk\n" before the command.
		open string
		// command is what the command does to a.txt.
		command func(path string) error
		// want is the content before the journal lists, "" for no entry.
		want string
		// editor rewinds through an editor that has the file open.
		editor bool
	}{
		{
			name:    "an open file the command rewrote",
			open:    "disk\n",
			command: func(p string) error { return os.WriteFile(p, []byte("formatted\n"), 0o644) },
			want:    "disk\n",
		},
		{
			name:    "rewound through the editor, which is told the disk it may save over",
			open:    "disk\n",
			command: func(p string) error { return os.WriteFile(p, []byte("formatted\n"), 0o644) },
			want:    "disk\n",
			editor:  true,
		},
		{
			name:    "unsaved typing: the disk text is what it changed",
			open:    "typed, unsaved\n",
			command: func(p string) error { return os.WriteFile(p, []byte("generated\n"), 0o644) },
			want:    "disk\n",
		},
		{
			name:    "a touch with the same content is no change",
			open:    "disk\n",
			command: func(p string) error { return os.WriteFile(p, []byte("disk\n"), 0o644) },
		},
		{
			name:    "a file the editor does not have open is not watched",
			command: func(p string) error { return os.WriteFile(p, []byte("changed\n"), 0o644) },
		},
		{
			name:    "a deleted file is not recorded",
			open:    "disk\n",
			command: os.Remove,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "a.txt")
			if err := os.WriteFile(path, []byte("disk\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			ws := workspace.New(dir)
			ws.SetJournal(workspace.OpenJournal(filepath.Join(t.TempDir(), "changes"), workspace.JournalOptions{}))
			var ed *workspacetest.FakeEditor
			if tt.editor {
				ed = workspacetest.NewFakeEditor(ws)
				if err := ed.Open(path, "disk\n"); err != nil {
					t.Fatal(err)
				}
			} else if tt.open != "" {
				if err := ws.Open(workspace.PathToURI(path), "plaintext", 1, "disk\n"); err != nil {
					t.Fatal(err)
				}
				if tt.open != "disk\n" {
					if err := ws.Change(workspace.PathToURI(path), 2, []workspace.ContentChange{{Text: tt.open}}); err != nil {
						t.Fatal(err)
					}
				}
			}
			ctx := workspace.WithOrigin(context.Background(), workspace.Origin{CallID: "bash-1", Tool: "Bash", Agent: "Claude Code", Turn: "turn-1"})
			watch := ws.WatchOpenFiles(ctx)
			if err := tt.command(path); err != nil {
				t.Fatal(err)
			}
			watch.Record(ctx)
			entries := ws.Journal().Entries()
			if tt.want == "" {
				if len(entries) != 0 {
					t.Fatalf("journal lists %+v, want nothing", entries)
				}
				return
			}
			if len(entries) != 1 {
				t.Fatalf("journal lists %d changes, want 1: %+v", len(entries), entries)
			}
			e := entries[0]
			if e.CallID != "bash-1" || e.Turn != "turn-1" || e.Tool != "Bash" || e.Path != path || !e.Kept {
				t.Errorf("entry %+v, want call bash-1 of turn-1 by Bash on %s, kept", e, path)
			}
			before, err := ws.Journal().Content(e.Before)
			if err != nil || string(before) != tt.want {
				t.Errorf("content before = %q, %v; want %q", before, err, tt.want)
			}
			if tt.open != "disk\n" {
				return // unsaved typing: a rewind keeps the buffer (TestRewind)
			}
			var editor workspace.Editor
			if ed != nil {
				editor = ed
			}
			res, err := ws.Rewind(context.Background(), editor, workspace.Selection{Turn: "turn-1"})
			if err != nil {
				t.Fatalf("rewind: %v", err)
			}
			if ed != nil {
				calls := ed.Calls()
				sum := sha256.Sum256([]byte("formatted\n"))
				if len(calls) != 1 || calls[0].Toolhost == nil || calls[0].Toolhost.Disk[workspace.PathToURI(path)] != hex.EncodeToString(sum[:]) {
					t.Errorf("the rewind's edit does not name the disk the buffer is behind: %+v", calls)
				}
			}
			if got, _ := os.ReadFile(path); string(got) != tt.want {
				t.Errorf("after the rewind (%+v) the file holds %q, want %q", res, got, tt.want)
			}
		})
	}
}

// BenchmarkWatchOpenFiles is what journaling a command's changes adds to a
// Bash call: a look at 20 open 100 KB documents before it and after it
// (nothing changed).
func BenchmarkWatchOpenFiles(b *testing.B) {
	dir := b.TempDir()
	ws := workspace.New(dir)
	ws.SetJournal(workspace.OpenJournal(b.TempDir(), workspace.JournalOptions{}))
	text := strings.Repeat("line of some source text\n", 4000)
	for i := range 20 {
		path := filepath.Join(dir, fmt.Sprintf("f%d.go", i))
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := ws.Open(workspace.PathToURI(path), "go", 1, text); err != nil {
			b.Fatal(err)
		}
	}
	// Past the racy window, as a file opened a while ago is.
	old := time.Now().Add(-time.Hour)
	for i := range 20 {
		_ = os.Chtimes(filepath.Join(dir, fmt.Sprintf("f%d.go", i)), old, old)
	}
	for i := range 20 {
		p := filepath.Join(dir, fmt.Sprintf("f%d.go", i))
		_ = ws.Change(workspace.PathToURI(p), 2, []workspace.ContentChange{{Text: text}})
		_ = ws.Save(workspace.PathToURI(p))
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		ws.WatchOpenFiles(ctx).Record(ctx)
	}
	if n := len(ws.Journal().Entries()); n != 0 {
		b.Fatalf("%d changes recorded, want none", n)
	}
}
