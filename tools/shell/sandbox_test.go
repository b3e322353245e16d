package shell

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/settings"
)

func sandboxOn(s *settings.Settings) { s.Bash.Sandbox = true }

func runBash(t *testing.T, b *Bash, command string) (string, bool) {
	t.Helper()
	res, err := execTool(context.Background(), b, map[string]any{"command": command}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Text(), res.IsError
}

// Under bash.sandbox a command writes inside the workspace and nowhere
// else, and cannot connect to a local port.
func TestBashSandbox(t *testing.T) {
	outside := sandboxOutside(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	connect := "exec 3<>/dev/tcp/127.0.0.1/" + port + " && echo connected"

	for _, sandbox := range []bool{false, true} {
		b, _, dir := newBash(t, with(func(s *settings.Settings) { s.Bash.Sandbox = sandbox }))
		out, isErr := runBash(t, b, "echo inside > in.txt && cat in.txt")
		if isErr || out != "inside\n" {
			t.Errorf("sandbox %v: a write inside the workspace failed: %q", sandbox, out)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "in.txt")); string(got) != "inside\n" {
			t.Errorf("sandbox %v: the file written inside holds %q", sandbox, got)
		}
		target := filepath.Join(outside, "out"+strconv.FormatBool(sandbox)+".txt")
		out, isErr = runBash(t, b, "echo outside > "+target)
		_, statErr := os.Stat(target)
		if wrote := statErr == nil; wrote == sandbox {
			t.Errorf("sandbox %v: write outside the workspace: wrote %v (%q, isError %v)", sandbox, wrote, out, isErr)
		}
		out, _ = runBash(t, b, connect)
		if connected := strings.Contains(out, "connected"); connected == sandbox {
			t.Errorf("sandbox %v: a connection to a local port: connected %v (%q)", sandbox, connected, out)
		}
	}

	// The network, when allowed.
	b, _, _ := newBash(t, with(func(s *settings.Settings) { s.Bash.Sandbox, s.Bash.SandboxNetwork = true, true }))
	if out, _ := runBash(t, b, connect); !strings.Contains(out, "connected") {
		t.Errorf("with bash.sandboxNetwork the connection failed: %q", out)
	}
}

// Without bubblewrap the call fails and says how to install it; the
// command never runs unconfined.
func TestBashSandboxWithoutBubblewrap(t *testing.T) {
	b, _, dir := newBash(t, with(sandboxOn))
	t.Setenv("PATH", t.TempDir())
	out, isErr := runBash(t, b, "/bin/echo ran > ran.txt")
	if !isErr || !strings.Contains(out, "apt-get install bubblewrap") {
		t.Errorf("got %q (isError %v), want a refusal that says how to install bubblewrap", out, isErr)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran.txt")); err == nil {
		t.Errorf("the command ran without the sandbox")
	}
}

// bubblewrap's own failure to set the sandbox up is told apart from the
// command's output and says what to do.
func TestSandboxFailure(t *testing.T) {
	on := settings.Defaults()
	sandboxOn(on)
	tests := []struct {
		s      *settings.Settings
		output string
		code   int
		want   string
	}{
		{on, "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces\n", 1, "could not set up the sandbox (bwrap: No permissions"},
		{on, "bwrap: x\n", 2, ""},
		{on, "make: *** error\n", 1, ""},
		{settings.Defaults(), "bwrap: x\n", 1, ""},
	}
	for _, tt := range tests {
		got := sandboxFailure(tt.s, tt.output, tt.code)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("sandboxFailure(%q, %d) = %q, want %q", tt.output, tt.code, got, tt.want)
		}
	}
}

// TestBashSandboxKeepsCwd: under bubblewrap (a /tmp of its own) cd still
// carries over to the next call.
func TestBashSandboxKeepsCwd(t *testing.T) {
	if _, err := exec.LookPath(bwrapName); err != nil {
		t.Fatalf("bubblewrap is not installed (scripts/deps.sh installs it): %v", err)
	}
	b, _, dir := newBash(t, with(sandboxOn))
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, isErr := runBash(t, b, "cd sub"); isErr {
		t.Fatalf("cd: %q", out)
	}
	if out, _ := runBash(t, b, "pwd"); out != filepath.Join(dir, "sub")+"\n" {
		t.Errorf("pwd after cd in the sandbox: %q", out)
	}
}

// Under bash.sandbox the protected files (git config and hooks, toolhost's
// settings, the editors' files) stay read-only, and cannot be moved away
// and replaced either, while the rest of the workspace and the notes stay
// writable.
func TestBashSandboxProtectedFiles(t *testing.T) {
	if _, err := exec.LookPath(bwrapName); err != nil {
		t.Fatalf("bubblewrap is not installed (scripts/deps.sh installs it): %v", err)
	}
	b, _, dir := newBash(t, with(sandboxOn))
	files := map[string]string{
		".git/config":             "[core]\n",
		".git/hooks/pre-commit":   "#!/bin/sh\n",
		".toolhost/settings.json": "{}\n",
		".toolhost/memory/a.md":   "note\n",
		".vscode/settings.json":   "{}\n",
		"src/a.txt":               "a\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, command := range []string{
		"echo x >> .git/config",
		"echo x > .toolhost/settings.json",
		"echo x > .git/hooks/pre-commit",
		"echo x > .git/hooks/post-checkout",
		"echo x > .vscode/settings.json",
		"mv .git .git.old && mkdir -p .git && echo x > .git/config",
		"mv .vscode .vscode.old && mkdir .vscode && echo x > .vscode/settings.json",
		"rm -rf .toolhost",
	} {
		runBash(t, b, command)
	}
	for name, text := range files {
		if name == "src/a.txt" || name == ".toolhost/memory/a.md" {
			continue
		}
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != text {
			t.Errorf("%s in the sandbox: now %q (%v), want it unchanged", name, got, err)
		}
	}
	for _, name := range []string{".git/hooks/post-checkout", ".git.old", ".vscode.old"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			t.Errorf("the sandbox created %s", name)
		}
	}
	if out, isErr := runBash(t, b, "echo b >> src/a.txt && echo n > .toolhost/memory/b.md"); isErr {
		t.Errorf("a write to src/a.txt or the notes failed in the sandbox: %q", out)
	}
	for name, want := range map[string]string{"src/a.txt": "a\nb\n", ".toolhost/memory/b.md": "n\n"} {
		if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != want {
			t.Errorf("%s after a write in the sandbox: %q, want %q", name, got, want)
		}
	}
}

// sandboxOutside fails the test when bubblewrap is missing and returns a
// folder outside the workspace and outside the sandbox's private /tmp,
// removed when the test ends.
func sandboxOutside(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath(bwrapName); err != nil {
		t.Fatalf("bubblewrap is not installed (scripts/deps.sh installs it): %v", err)
	}
	outside, err := os.MkdirTemp("/var/tmp", "toolhost-sandbox-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	return outside
}
