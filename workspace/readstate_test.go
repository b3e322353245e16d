package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestCheckFresh(t *testing.T) {
	tests := []struct {
		name string
		// act runs after the file (content "v1\n") was read, unless noRead.
		act    func(t *testing.T, w *Workspace, path string)
		noRead bool
		want   error // nil, ErrNotRead or ErrStale
	}{
		{name: "never read", noRead: true, want: ErrNotRead},
		{name: "unchanged", act: func(*testing.T, *Workspace, string) {}},
		{name: "changed on disk", want: ErrStale, act: func(t *testing.T, _ *Workspace, p string) {
			writeFile(t, p, "v2\n")
		}},
		{name: "rewritten with the same content and a new mtime", act: func(t *testing.T, _ *Workspace, p string) {
			writeFile(t, p, "v1\n")
			future := time.Now().Add(time.Hour)
			if err := os.Chtimes(p, future, future); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "deleted", want: ErrStale, act: func(t *testing.T, _ *Workspace, p string) {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "opened in the editor with the same text", act: func(t *testing.T, w *Workspace, p string) {
			if err := w.Open(PathToURI(p), "", 1, "v1\n"); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "changed in the editor", want: ErrStale, act: func(t *testing.T, w *Workspace, p string) {
			if err := w.Open(PathToURI(p), "", 1, "v1\n"); err != nil {
				t.Fatal(err)
			}
			if err := w.Change(PathToURI(p), 2, []ContentChange{{Text: "typed\n"}}); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			w := New(dir)
			p := filepath.Join(dir, "f.txt")
			writeFile(t, p, "v1\n")
			if !tt.noRead {
				start := time.Now()
				data, v, err := w.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				w.MarkRead(p, data, v, start)
				tt.act(t, w, p)
			}
			err := w.CheckFresh(p)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("CheckFresh = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("CheckFresh = %v, want %v", err, tt.want)
			}
			var se *StaleError
			if !errors.As(err, &se) || se.Path != p {
				t.Fatalf("CheckFresh error %T does not name the path", err)
			}
		})
	}
}

// TestChangeDuringRead: a save that lands between reading a file and
// recording the read, with the same size, is caught by content: the file's
// new time must not vouch for the old content.
func TestChangeDuringRead(t *testing.T) {
	dir := t.TempDir()
	w := New(dir)
	p := filepath.Join(dir, "f.txt")
	writeFile(t, p, "v1\n")
	setOld(t, p)
	start := time.Now()
	data, v, err := w.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, p, "v2\n") // the user's save, while the read is recorded
	w.MarkRead(p, data, v, start)
	if err := w.CheckFresh(p); !errors.Is(err, ErrStale) {
		t.Fatalf("CheckFresh = %v, want ErrStale", err)
	}
}

// TestReadRecordKeepsTheTimeOfAnOldFile: the time and size shortcut is
// recorded for a file last changed well before the read, and not for one
// changed just before it.
func TestReadRecordKeepsTheTimeOfAnOldFile(t *testing.T) {
	for _, tt := range []struct {
		name     string
		old      bool
		shortcut bool
	}{{"changed an hour ago", true, true}, {"changed just now", false, false}} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			w := New(dir)
			p := filepath.Join(dir, "f.txt")
			writeFile(t, p, "v1\n")
			if tt.old {
				setOld(t, p)
			}
			start := time.Now()
			data, v, err := w.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			w.MarkRead(p, data, v, start)
			w.reads.mu.Lock()
			rec := w.reads.byPath[p]
			w.reads.mu.Unlock()
			if got := !rec.modTime.IsZero(); got != tt.shortcut {
				t.Errorf("time recorded = %v, want %v", got, tt.shortcut)
			}
			if err := w.CheckFresh(p); err != nil {
				t.Errorf("CheckFresh of the unchanged file = %v", err)
			}
		})
	}
}

func setOld(t *testing.T, p string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
}

func TestReadFilePrefersOpenBuffer(t *testing.T) {
	dir := t.TempDir()
	w := New(dir)
	p := filepath.Join(dir, "f.txt")
	writeFile(t, p, "disk\n")
	data, v, err := w.ReadFile(p)
	if err != nil || string(data) != "disk\n" || v != nil {
		t.Fatalf("ReadFile before open = %q, %v, %v", data, v, err)
	}
	if err := w.Open(PathToURI(p), "", 7, "buffer\n"); err != nil {
		t.Fatal(err)
	}
	data, v, err = w.ReadFile(p)
	if err != nil || string(data) != "buffer\n" || v == nil || *v != 7 {
		t.Fatalf("ReadFile of open document = %q, %v, %v; want the buffer at version 7", data, v, err)
	}
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestSetReadBeforeWrite(t *testing.T) {
	dir := t.TempDir()
	w := New(dir)
	p := filepath.Join(dir, "f.txt")
	writeFile(t, p, "v1\n")
	w.SetReadBeforeWrite(false)
	if err := w.CheckFresh(p); err != nil {
		t.Errorf("unread file with the requirement off: %v", err)
	}
	w.MarkRead(p, []byte("v1\n"), nil, time.Now())
	writeFile(t, p, "v2 from elsewhere\n")
	if err := w.CheckFresh(p); !errors.Is(err, ErrStale) {
		t.Errorf("a file changed since its read must still be stale, got %v", err)
	}
	w.SetReadBeforeWrite(true)
	if err := w.CheckFresh(filepath.Join(dir, "other.txt")); !errors.Is(err, ErrNotRead) {
		t.Errorf("requirement back on: %v", err)
	}
}
