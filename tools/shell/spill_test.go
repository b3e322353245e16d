package shell

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/workspace"
)

// smallSpill bounds saved outputs to a size a test can fill quickly.
func smallSpill(t *testing.T, maxBytes int64, tailBytes int) {
	t.Helper()
	oldMax, oldTail := spillMaxBytes, spillTailBytes
	spillMaxBytes, spillTailBytes = maxBytes, tailBytes
	t.Cleanup(func() { spillMaxBytes, spillTailBytes = oldMax, oldTail })
}

// savedOutputs lists the saved outputs in the workspace's output folder.
func savedOutputs(t *testing.T, dir string) []string {
	t.Helper()
	found, err := filepath.Glob(filepath.Join(dir, ".toolhost", "output", "bash-*"))
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// A command printing far more than the bound leaves a file of bounded size
// holding the output's start and end, and the result says what is missing.
func TestBashSavedOutputIsBounded(t *testing.T) {
	smallSpill(t, 64<<10, 4<<10)
	b, _, _ := newBash(t, with(func(s *settings.Settings) { s.Bash.MaxOutputChars = 2000 }))
	res, err := execTool(context.Background(), b, map[string]any{"command": "seq 1 200000"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	text := res.Text()
	m := regexp.MustCompile(`The output is saved in (\S+) without (\d+) bytes of its middle`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("the result does not say the saved output is cut: %q", text[max(0, len(text)-400):])
	}
	got, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatal(err)
	}
	all, _ := exec.Command("seq", "1", "200000").Output()
	if len(got) > 64<<10+200 {
		t.Errorf("the saved file holds %d bytes, over the bound of %d", len(got), 64<<10)
	}
	head := all[:64<<10-4<<10]
	if !bytes.HasPrefix(got, head) || !bytes.HasSuffix(got, all[len(all)-4<<10:]) {
		t.Errorf("the saved file does not keep the output's start and end: %q ... %q", got[:20], got[len(got)-20:])
	}
	dropped := len(all) - (64<<10 - 4<<10) - 4<<10
	if m[2] != strconv.Itoa(dropped) || !bytes.Contains(got, []byte(strconv.Itoa(dropped)+" bytes of the output are not saved here")) {
		t.Errorf("dropped %s bytes by the result; want %d, said in the file too", m[2], dropped)
	}
	// Output under the bound is saved whole, as before.
	res, _ = execTool(context.Background(), b, map[string]any{"command": "seq 1 10000"}, nil)
	if m := regexp.MustCompile(`The whole output is saved in (\S+):`).FindStringSubmatch(res.Text()); m == nil {
		t.Errorf("output under the bound: %q", res.Text())
	} else if got, _ := os.ReadFile(m[1]); !bytes.Equal(got, mustOutput(t, "seq", "1", "10000")) {
		t.Errorf("output under the bound is not saved whole (%d bytes)", len(got))
	}
}

// A command moved to the background leaves no saved file: its result names
// none, and the task keeps the output from then on.
func TestBashMovedToBackgroundLeavesNoSavedFile(t *testing.T) {
	b, _, dir := newBash(t, with(func(s *settings.Settings) { s.Bash.MaxOutputChars = 2000 }))
	cmd := "seq 1 100000; while [ ! -e go-on ]; do sleep 0.05; done"
	t.Cleanup(func() { _ = os.WriteFile(filepath.Join(dir, "go-on"), nil, 0o644) })
	res, err := execTool(context.Background(), b, map[string]any{"command": cmd, "timeout": 300}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out := res.Structured.(BashOutput); out.BackgroundTaskID == "" {
		t.Fatalf("not moved to the background: %q", res.Text())
	}
	if found := savedOutputs(t, dir); len(found) != 0 {
		t.Errorf("saved files left behind, named by no result: %v", found)
	}
}

func mustOutput(t *testing.T, name string, args ...string) []byte {
	t.Helper()
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The saved output lives outside the workspace, in its state folder, as
// Claude Code keeps it outside the project: nothing appears among the
// user's files, and a link the repository ships at .toolhost leads
// nowhere.
func TestBashSavedOutputOutsideTheWorkspace(t *testing.T) {
	b, _, dir := newBash(t, with(func(s *settings.Settings) { s.Bash.MaxOutputChars = 2000 }))
	victim := t.TempDir()
	if err := os.Symlink(victim, filepath.Join(dir, ".toolhost")); err != nil {
		t.Fatal(err)
	}
	res, err := execTool(context.Background(), b, map[string]any{"command": "seq 1 100000"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`The whole output is saved in (\S+):`).FindStringSubmatch(res.Text())
	if m == nil {
		t.Fatalf("no saved file named: %q", res.Text()[max(0, len(res.Text())-300):])
	}
	state, err := workspace.StateDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(m[1]) != filepath.Join(state, "output") {
		t.Errorf("saved in %s, want the workspace's state folder %s", m[1], state)
	}
	if got, _ := os.ReadFile(m[1]); !bytes.Equal(got, mustOutput(t, "seq", "1", "100000")) {
		t.Errorf("the saved file %s does not hold the output", m[1])
	}
	out := res.Structured.(BashOutput)
	if out.PersistedOutputPath != m[1] || out.PersistedOutputSize != int64(len(mustOutput(t, "seq", "1", "100000"))) {
		t.Errorf("structured persistedOutputPath %q, persistedOutputSize %d", out.PersistedOutputPath, out.PersistedOutputSize)
	}
	for _, d := range []string{dir, victim} {
		var found []string
		_ = filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() && p != filepath.Join(dir, ".toolhost") {
				found = append(found, p)
			}
			return nil
		})
		if len(found) > 0 {
			t.Errorf("files appeared in %s: %v", d, found)
		}
	}
	// Another workspace has a state folder of its own.
	if other, _ := workspace.StateDir(t.TempDir()); other == state {
		t.Errorf("two workspaces share the state folder %s", state)
	}
}
