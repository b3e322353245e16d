package mcp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolhost/toolhost/settings"
)

// TestUserServerStartsOutsideUntrustedFolder: the user's own server,
// started the usual way (python3 -m NAME), must not run a module of the
// same name that an untrusted folder ships; once the folder is trusted it
// runs in the workspace as before.
func TestUserServerStartsOutsideUntrustedFolder(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	state := t.TempDir()
	t.Setenv("TOOLHOST_STATE_DIR", state)
	records := t.TempDir()

	// The user's server: a module on the user's PYTHONPATH that records
	// the folder it was started in, then exits: a server that never
	// connected is left failed, so it starts once per configuration.
	userLib := t.TempDir()
	writeFile(t, filepath.Join(userLib, "toolhost_fake_server", "__main__.py"),
		"import os\nopen(os.path.join(os.environ['RECORDS'], 'cwd'), 'a').write(os.getcwd() + '\\n')\n")
	// The cloned folder ships a module of the same name; python3 -m looks
	// in the working folder first.
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "toolhost_fake_server", "__main__.py"),
		"import os\nopen(os.path.join(os.environ['RECORDS'], 'decoy'), 'w').write('ran')\n")

	var trusted atomic.Bool
	srv := settings.MCPServer{Command: python, Args: []string{"-m", "toolhost_fake_server"},
		Env: map[string]string{"PYTHONPATH": userLib, "RECORDS": records, "PYTHONDONTWRITEBYTECODE": "1"}}
	m, _, log := startManager(t, root, map[string]settings.MCPServer{"user": srv}, func(o *Options) {
		o.ProjectTrusted = trusted.Load
	})
	log.waitFor(t, 0, "the server ended", func(st ServerStatus) bool { return st.Name == "user" && st.LastError != "" })

	if _, err := os.Stat(filepath.Join(records, "decoy")); err == nil {
		t.Fatal("the untrusted folder's module ran in place of the user's server")
	}
	neutral := readLines(t, filepath.Join(records, "cwd"))
	if len(neutral) != 1 || !strings.HasPrefix(neutral[0], state) {
		t.Fatalf("before trust the server ran in %q, want a folder under the state folder %s", neutral, state)
	}
	if entries, err := os.ReadDir(neutral[0]); err != nil || len(entries) != 0 {
		t.Fatalf("the neutral folder %s should be empty: %v %v", neutral[0], entries, err)
	}

	// Trusted: the same server restarts, now in the workspace (where the
	// folder's module is what runs, as the user agreed).
	// Only what happens after the reload counts: the first server's own
	// later changes are still in the log past its end.
	log.mu.Lock()
	reloaded := len(log.changes)
	log.mu.Unlock()
	trusted.Store(true)
	if err := m.Reload(); err != nil {
		t.Fatal(err)
	}
	// The restarted server records its start before it ends, and its end
	// is a change after the reload; a change of the reload itself (the old
	// status dropped) comes before the record and does not count.
	decoyRan := func() bool { _, err := os.Stat(filepath.Join(records, "decoy")); return err == nil }
	log.waitFor(t, reloaded, "the server to run in the workspace after trust (cwd records: "+strings.Join(readLines(t, filepath.Join(records, "cwd")), " ")+")",
		func(st ServerStatus) bool { return st.Name == "user" && st.LastError != "" && decoyRan() })
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the server left no record: %v", err)
	}
	return strings.Fields(string(data))
}

// TestServerCommandSkipsRelativePathEntries: a server named by a bare
// command is looked up only in PATH's absolute folders. A relative entry
// (node_modules/.bin) names a folder of wherever toolhost runs, here the
// cloned folder, whose program of the same name must never start.
func TestServerCommandSkipsRelativePathEntries(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("sh is not installed")
	}
	t.Setenv("TOOLHOST_STATE_DIR", t.TempDir())
	records := t.TempDir()
	const name = "toolhost-fake-mcp-server"
	userBin := t.TempDir()
	writeExecutable(t, filepath.Join(userBin, name), "#!/bin/sh\necho ran > \"$RECORDS/user\"\n")
	root := t.TempDir()
	writeExecutable(t, filepath.Join(root, "node_modules", ".bin", name), "#!/bin/sh\necho ran > \"$RECORDS/decoy\"\n")
	t.Chdir(root)
	t.Setenv("PATH", "node_modules/.bin"+string(filepath.ListSeparator)+userBin+string(filepath.ListSeparator)+os.Getenv("PATH"))

	srv := settings.MCPServer{Command: name, Env: map[string]string{"RECORDS": records}}
	_, _, log := startManager(t, root, map[string]settings.MCPServer{"user": srv}, nil)
	log.waitFor(t, 0, "the server ended", func(st ServerStatus) bool { return st.Name == "user" && st.LastError != "" })

	if _, err := os.Stat(filepath.Join(records, "decoy")); err == nil {
		t.Fatal("the program in the folder's node_modules/.bin ran in place of the user's server")
	}
	if _, err := os.Stat(filepath.Join(records, "user")); err != nil {
		t.Fatalf("the user's server in %s did not run: %v", userBin, err)
	}
}

func writeExecutable(t *testing.T, path, content string) {
	t.Helper()
	writeFile(t, path, content)
	if err := os.Chmod(path, 0o755); err != nil {
		t.Fatal(err)
	}
}
