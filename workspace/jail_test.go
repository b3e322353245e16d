package workspace_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testfifo"
	"github.com/toolhost/toolhost/workspace"
	"github.com/toolhost/toolhost/workspace/workspacetest"
)

// jailed makes a workspace folder and a folder outside it; t.TempDir's
// path is resolved so that comparisons see real paths.
func jailed(t *testing.T) (ws *workspace.Workspace, root, outside string) {
	t.Helper()
	t.Setenv("TOOLHOST_STATE_DIR", t.TempDir())
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, outside = filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{root, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return workspace.New(root), root, outside
}

func TestRealPath(t *testing.T) {
	_, root, outside := jailed(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(filepath.Join(outside, "authorized_keys"), filepath.Join(root, "dangling")))
	must(os.Symlink("../outside", filepath.Join(root, "out")))
	must(os.Symlink("loop", filepath.Join(root, "loop")))
	must(os.Symlink("chain2", filepath.Join(root, "chain1")))
	must(os.Symlink("out/new/file", filepath.Join(root, "chain2")))
	must(os.Mkdir(filepath.Join(root, "sub"), 0o755))
	tests := []struct{ in, want string }{
		{root + "/plain.txt", root + "/plain.txt"},
		{root + "/dangling", outside + "/authorized_keys"},
		{root + "/out/x/y", outside + "/x/y"},
		{root + "/sub/../out/z", outside + "/z"},
		{root + "/chain1", outside + "/new/file"},
		{root + "/missing/../sub", root + "/sub"},
		{root + "/loop/x", root + "/loop/x"},
	}
	for _, tt := range tests {
		if got := workspace.RealPath(tt.in); got != tt.want {
			t.Errorf("RealPath(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// A repository can ship a dangling link to a file outside the workspace: a
// write through it is outside, on disk and through the editor alike.
func TestDanglingLinkIsOutside(t *testing.T) {
	ws, root, outside := jailed(t)
	target := filepath.Join(outside, "authorized_keys")
	link := filepath.Join(root, "notes.txt")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if ws.Inside(link) {
		t.Errorf("Inside(%s) = true for a link to %s", link, target)
	}
	fe := workspacetest.NewFakeEditor(ws)
	for _, ed := range []workspace.Editor{nil, fe} {
		_, err := ws.Modify(context.Background(), ed, workspace.Modification{Path: link, Label: "Write notes.txt", Plan: setTo("ssh-rsa AAAA\n")})
		var outsideErr *workspace.OutsideError
		if !errors.As(err, &outsideErr) || !workspace.Refused(err) {
			t.Errorf("editor %v: ApplyChange through a dangling link = %v, want an OutsideError", ed != nil, err)
		}
		if _, err := os.Lstat(target); err == nil {
			t.Fatalf("editor %v: %s was created outside the workspace", ed != nil, target)
		}
	}
	if n := len(fe.Calls()); n != 0 {
		t.Errorf("the editor got %d edits for a path leading outside; want none", n)
	}
}

// Another process flips a folder between a real folder and a link leading
// outside while writes go on: none of them may land outside.
func TestWriteSurvivesFolderSwap(t *testing.T) {
	ws, root, outside := jailed(t)
	sub := filepath.Join(root, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	stop := workspacetest.SwapFolder(sub, outside)
	for i := 0; i < 400; i++ {
		// The permission check passes the path first, as the pipeline does.
		if p := filepath.Join(sub, "f"+strconv.Itoa(i)); ws.Inside(p) {
			_ = ws.WriteFile(p, []byte("x"))
		}
	}
	stop()
	entries, err := os.ReadDir(outside)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) > 0 {
		t.Errorf("%d of 400 writes landed outside the workspace while its folder was swapped (first: %s)", len(entries), entries[0].Name())
	}
}

func TestWriteThroughLinkKeepsIt(t *testing.T) {
	ws, root, _ := jailed(t)
	target := filepath.Join(root, "real.txt")
	link := filepath.Join(root, "link.txt")
	if err := os.WriteFile(target, []byte("old\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.txt", link); err != nil {
		t.Fatal(err)
	}
	if err := ws.WriteFile(link, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", st.Mode(), err)
	}
	got, _ := os.ReadFile(target)
	if string(got) != "new\n" {
		t.Errorf("target holds %q, want the new content", got)
	}
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o640 {
		t.Errorf("target mode %v, want 0640 kept", st.Mode().Perm())
	}
}

func TestWriteRefusesWhatIsNotAWritableFile(t *testing.T) {
	ws, root, _ := jailed(t)
	ro := filepath.Join(root, "ro.txt")
	if err := os.WriteFile(ro, []byte("keep\n"), 0o444); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(root, "pipe")
	testfifo.Make(t, fifo)
	tests := []struct {
		path, want string
	}{
		{ro, "read-only (mode 0444)"},
		{fifo, "named pipe (FIFO), not a regular file"},
		{root, "is a directory"},
	}
	for _, tt := range tests {
		err := ws.WriteFile(tt.path, []byte("x"))
		if err == nil || !strings.Contains(err.Error(), tt.want) || !workspace.Refused(err) {
			t.Errorf("WriteFile(%s) = %v, want a refusal saying %q", tt.path, err, tt.want)
		}
	}
	if got, _ := os.ReadFile(ro); string(got) != "keep\n" {
		t.Errorf("the read-only file was changed to %q", got)
	}
	if st, _ := os.Lstat(fifo); st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced")
	}
}

// Text in an encoding the editor cannot address never goes to it as edits:
// a file the editor does not have open is written here byte for byte as
// planned (the editor is not asked), one it has open is refused, and so is
// a change the user reviews in the editor. Never a panic.
func TestEditorPathAndNonUTF8(t *testing.T) {
	utf16 := []byte{0xff, 0xfe, 'h', 0, 'i', 0, '\n', 0}
	utf16Next := []byte{0xff, 0xfe, 'h', 0, 'o', 0, '\n', 0}
	latin1 := []byte("caf\xe9 cr\xe8me\n")
	tests := []struct {
		name         string
		old, next    []byte
		open, review bool
		written      bool
	}{
		{"UTF-16, not open", utf16, utf16Next, false, false, true},
		{"Latin-1 to UTF-8, not open", latin1, []byte("new text\n"), false, false, true},
		{"UTF-16, open in the editor", utf16, utf16Next, true, false, false},
		{"UTF-16, reviewed in the editor", utf16, utf16Next, false, true, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, root, _ := jailed(t)
			fe := workspacetest.NewFakeEditor(ws)
			p := filepath.Join(root, "f"+strconv.Itoa(i)+".txt")
			if err := os.WriteFile(p, tt.old, 0o644); err != nil {
				t.Fatal(err)
			}
			seen := tt.old
			if tt.open {
				// The editor holds the file decoded: what a Read shows.
				seen = []byte("hi\n")
				if err := fe.Open(p, string(seen)); err != nil {
					t.Fatal(err)
				}
			}
			ws.MarkRead(p, seen, nil, time.Now())
			next := tt.next
			_, err := ws.Modify(context.Background(), fe, workspace.Modification{Path: p, Label: "Write", Review: tt.review,
				Plan: func([]byte) ([]byte, error) { return next, nil }})
			got, _ := os.ReadFile(p)
			if tt.written {
				if err != nil || string(got) != string(next) {
					t.Errorf("Modify = %v, file %q; want %q written", err, got, next)
				}
			} else {
				var enc *workspace.EncodingError
				if !errors.As(err, &enc) || !workspace.Refused(err) {
					t.Errorf("Modify = %v, want an EncodingError", err)
				}
				if string(got) != string(tt.old) {
					t.Errorf("the refused change left the file as %q", got)
				}
			}
			if n := len(fe.Calls()); n != 0 {
				t.Errorf("the editor got %d applyEdit calls for text it cannot address", n)
			}
		})
	}
}

// A temporary file a killed write left behind is removed by the next start;
// a user's file that only looks alike stays.
func TestCleanStaleTemps(t *testing.T) {
	state := t.TempDir()
	t.Setenv("TOOLHOST_STATE_DIR", state)
	dir := t.TempDir()
	leftover := filepath.Join(dir, ".toolhost-tmp-0123456789abcdef-main.go")
	user := filepath.Join(dir, ".main.go.toolhost-123")
	for _, p := range []string{leftover, user} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A process that has ended: its id names the list it left.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	lists := filepath.Join(state, "pending-writes")
	if err := os.MkdirAll(lists, 0o700); err != nil {
		t.Fatal(err)
	}
	list := filepath.Join(lists, strconv.Itoa(cmd.Process.Pid)+".list")
	if err := os.WriteFile(list, []byte(leftover+"\n"+user+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if n := workspace.CleanStaleTemps(); n != 1 {
		t.Errorf("CleanStaleTemps removed %d files, want 1", n)
	}
	if _, err := os.Lstat(leftover); err == nil {
		t.Errorf("the leftover temporary file is still there")
	}
	if _, err := os.Lstat(user); err != nil {
		t.Errorf("the user's file was removed: %v", err)
	}
	if _, err := os.Lstat(list); err == nil {
		t.Errorf("the list of the ended process is still there")
	}
}

// Only the first clean-up of a process runs: a later one would take the
// process's own list, whose writes may be under way, for a dead one's.
func TestCleanStaleTempsOnceLeavesTheProcessesOwnWrites(t *testing.T) {
	state := t.TempDir()
	t.Setenv("TOOLHOST_STATE_DIR", state)
	workspace.CleanStaleTempsOnce()
	dir := t.TempDir()
	underWay := filepath.Join(dir, ".toolhost-tmp-0123456789abcdef-main.go")
	if err := os.WriteFile(underWay, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	lists := filepath.Join(state, "pending-writes")
	if err := os.MkdirAll(lists, 0o700); err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(lists, strconv.Itoa(os.Getpid())+".list")
	if err := os.WriteFile(own, []byte(underWay+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	workspace.CleanStaleTempsOnce()
	for _, p := range []string{underWay, own} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("a second clean-up removed %s: %v", p, err)
		}
	}
}
