package session

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestTheFirstSessionRemovesAKilledWritesLeftovers: the temporary file of
// a write whose process was killed is removed when the next toolhost
// process makes its first session. The check runs in a test process of
// its own: the clean-up runs once per process, and another test's session
// may have run it already.
func TestTheFirstSessionRemovesAKilledWritesLeftovers(t *testing.T) {
	const child = "TOOLHOST_TEST_FIRST_SESSION"
	const name = "TestTheFirstSessionRemovesAKilledWritesLeftovers"
	if os.Getenv(child) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), child+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("--- PASS: "+name)) {
			t.Fatalf("the test in a process of its own: %v\n%s", err, out)
		}
		return
	}
	// A process that has ended: its id names the list it left.
	ended := exec.Command(os.Args[0], "-test.run=^$")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	leftover := filepath.Join(dir, ".toolhost-tmp-0123456789abcdef-main.go")
	if err := os.WriteFile(leftover, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	lists := filepath.Join(os.Getenv("TOOLHOST_STATE_DIR"), "pending-writes")
	if err := os.MkdirAll(lists, 0o700); err != nil {
		t.Fatal(err)
	}
	list := filepath.Join(lists, strconv.Itoa(ended.Process.Pid)+".list")
	if err := os.WriteFile(list, []byte(leftover+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Roots: []string{dir}, UserConfigPath: filepath.Join(dir, "none.json"), NoMCP: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if _, err := os.Lstat(leftover); err == nil {
		t.Error("the killed write's temporary file is still there after the first session was made")
	}
}
