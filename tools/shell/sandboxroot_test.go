package shell

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/toolhost/toolhost/tools/tasks"
	"github.com/toolhost/toolhost/workspace"
)

// The sandbox makes the folder a root was opened on writable: a root
// opened through a link works in the sandbox (bubblewrap cannot mount onto
// a link), and a root link re-pointed meanwhile (the pipeline refuses
// calls then; this is the moment between its check and the command's
// start) makes nothing else writable.
func TestTheSandboxBindsTheFolderThatWasOpened(t *testing.T) {
	if _, err := exec.LookPath(bwrapName); err != nil {
		t.Fatalf("bubblewrap is not installed (scripts/deps.sh installs it): %v", err)
	}
	base, err := os.MkdirTemp("/var/tmp", "toolhost-sandbox-root-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	opened, other, link := filepath.Join(base, "opened"), filepath.Join(base, "other"), filepath.Join(base, "proj")
	for _, d := range []string{opened, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(opened, link); err != nil {
		t.Fatal(err)
	}
	m := tasks.NewManager(tasks.Options{})
	t.Cleanup(func() { m.Close() })
	b := NewBash(workspace.New(link), with(sandboxOn), m, nil)
	if out, isErr := runBash(t, b, "echo x > f.txt"); isErr {
		t.Fatalf("a write in a root opened through a link failed in the sandbox: %q", out)
	}
	if got, _ := os.ReadFile(filepath.Join(opened, "f.txt")); string(got) != "x\n" {
		t.Fatalf("the opened folder holds %q", got)
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, link); err != nil {
		t.Fatal(err)
	}
	out, _ := runBash(t, b, "echo x > "+filepath.Join(link, "f.txt")+"; echo y > "+filepath.Join(other, "g.txt"))
	for _, f := range []string{"f.txt", "g.txt"} {
		if _, err := os.Stat(filepath.Join(other, f)); err == nil {
			t.Errorf("the sandboxed command wrote %s in the root link's new target (%q)", f, out)
		}
	}
}
