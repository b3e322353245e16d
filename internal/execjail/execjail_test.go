package execjail

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// requireJail skips when this machine has no Landlock (the fallback is
// tested by the callers).
func requireJail(t *testing.T) Status {
	t.Helper()
	st := Probe(context.Background())
	if st.Err != nil {
		t.Skipf("no Landlock here: %v", st.Err)
	}
	return st
}

// A jailed program reads what lies beneath the folders it was given and
// nothing else: not a file next to them, not a folder reached through a
// link from inside, not the home folder.
func TestJailedProgramReadsOnlyItsFolders(t *testing.T) {
	st := requireJail(t)
	t.Logf("%v", st)
	inside, outside := insideAndOutside(t)
	if err := os.Symlink(outside, filepath.Join(inside, "link")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want string // "" means refused
	}{
		{filepath.Join(inside, "f.txt"), "INSIDE"},
		{filepath.Join(outside, "f.txt"), ""},
		{filepath.Join(inside, "link", "f.txt"), ""},
		{"/etc/passwd", ""},
	} {
		// A folder that does not exist (an additional directory that is
		// gone) is no reason to refuse the rest.
		jailedCat(t, Readable{Paths: []string{inside, filepath.Join(filepath.Dir(inside), "gone")}}, c.path, c.want)
	}
}

// jailedCat runs cat path jailed to r and checks that it prints want, or,
// when want is "", that the kernel refuses it.
func jailedCat(t *testing.T, r Readable, path, want string) {
	t.Helper()
	cmd := CommandContext(context.Background(), r, "cat", path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	switch {
	case want != "" && (err != nil || stdout.String() != want):
		t.Errorf("cat %s: %q, %v, %s", path, stdout.String(), err, stderr.String())
	case want == "" && (err == nil || stdout.Len() > 0):
		t.Errorf("cat %s was not refused: %q", path, stdout.String())
	case want == "" && !strings.Contains(stderr.String(), "Permission denied"):
		t.Errorf("cat %s: refused with %q, not by the kernel", path, stderr.String())
	}
}

// A folder handed over open is the rule, whatever its path names by the
// time the helper starts: moved away and replaced by a link to outside,
// the folder is still readable under its new name and the link's target
// is not.
func TestJailHoldsOnTheOpenFolder(t *testing.T) {
	requireJail(t)
	inside, outside := insideAndOutside(t)
	dir, err := os.Open(inside)
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	moved := inside + ".moved"
	if err := os.Rename(inside, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, inside); err != nil {
		t.Fatal(err)
	}
	r := Readable{Dirs: []*os.File{dir}}
	jailedCat(t, r, filepath.Join(inside, "f.txt"), "")
	jailedCat(t, r, filepath.Join(moved, "f.txt"), "INSIDE")
	// The program starts in that folder.
	jailedCat(t, r, "f.txt", "INSIDE")
}

// With TOOLHOST_LANDLOCK=off nothing runs and the reason is given.
func TestJailRefusals(t *testing.T) {
	t.Setenv(OffVar, "off")
	if st := Probe(context.Background()); st.Err == nil || !strings.Contains(st.Err.Error(), OffVar) {
		t.Errorf("probe with %s=off: %v", OffVar, st)
	}
	mark := filepath.Join(t.TempDir(), "ran")
	cmd := CommandContext(context.Background(), Readable{Paths: []string{t.TempDir()}}, "touch", mark)
	var jailErr *Error
	if err := cmd.Run(); !errors.As(err, &jailErr) || !strings.Contains(err.Error(), "turned off") {
		t.Errorf("a run with %s=off: %v", OffVar, err)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Errorf("the program ran with the jail turned off")
	}
}

// The restriction stays on the thread that started the program: the
// server itself still reads what the jail refuses, after any number of
// jailed starts.
func TestTheServerStaysUnjailed(t *testing.T) {
	requireJail(t)
	inside, outside := insideAndOutside(t)
	for range 20 {
		jailedCat(t, Readable{Paths: []string{inside}}, filepath.Join(outside, "f.txt"), "")
		if data, err := os.ReadFile(filepath.Join(outside, "f.txt")); err != nil || string(data) != "OUTSIDE" {
			t.Fatalf("the server lost access after a jailed start: %q, %v", data, err)
		}
	}
}

// BenchmarkStart is what the jail adds to a program's start: a thread of
// its own, the ruleset and its restriction, against a plain exec.
func BenchmarkStart(b *testing.B) {
	if st := Probe(context.Background()); st.Err != nil {
		b.Skipf("no Landlock here: %v", st.Err)
	}
	dir := b.TempDir()
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("jailed", func(b *testing.B) {
		for b.Loop() {
			if err := CommandContext(context.Background(), Readable{Paths: []string{dir}}, "true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// The probe made once per process answers for every caller: a first
// caller already cancelled does not turn the jail off for the others.
func TestCheckOutlivesACancelledCaller(t *testing.T) {
	requireJail(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if st := Check(ctx); st.Err != nil {
		t.Errorf("Check with a cancelled context: %v", st)
	}
}

// insideAndOutside makes two sibling folders, ws and outside, each holding
// an f.txt that says INSIDE or OUTSIDE.
func insideAndOutside(t *testing.T) (inside, outside string) {
	t.Helper()
	base := t.TempDir()
	inside, outside = filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for dir, text := range map[string]string{inside: "INSIDE", outside: "OUTSIDE"} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return inside, outside
}
