package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileFolder is a workspace whose settings run a hook on every call;
// the hook leaves the file marker behind.
func hostileFolder(t *testing.T) (dir, marker string) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir, _ = filepath.EvalSymlinks(t.TempDir())
	marker = filepath.Join(t.TempDir(), "hook-ran")
	settings := `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"touch ` + marker + `"}]}]}}`
	if err := os.MkdirAll(filepath.Join(dir, ".toolhost"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".toolhost", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, marker
}

func ran(marker string) bool {
	_, err := os.Stat(marker)
	return err == nil
}

func TestCallInAnUntrustedFolderRunsNoHookAndSaysHowToTrust(t *testing.T) {
	dir, marker := hostileFolder(t)
	read := []string{"call", "--root", dir, "Read", `{"file_path":"a.txt"}`}

	// The CLI's default mode is bypassPermissions, but a default is no
	// choice of the user's: the folder stays untrusted.
	code, _, errOut := runCLI(t, "", read...)
	if code != 0 || ran(marker) {
		t.Fatalf("untrusted: code %d, hook ran %v, stderr %q", code, ran(marker), errOut)
	}
	if !strings.Contains(errOut, "touch "+marker) || !strings.Contains(errOut, "toolhost trust "+dir) {
		t.Errorf("stderr does not name the ignored hook and the trust command:\n%s", errOut)
	}

	code, out, errOut := runCLI(t, "", "trust", dir)
	if code != 0 || !strings.Contains(out, "touch "+marker) || !strings.Contains(out, "Trusted: "+dir) {
		t.Fatalf("trust: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, out, _ := runCLI(t, "", "trust", "--list"); code != 0 || !strings.HasPrefix(out, dir+"\t") {
		t.Errorf("trust --list: code %d, %q", code, out)
	}
	code, _, errOut = runCLI(t, "", read...)
	if code != 0 || !ran(marker) {
		t.Fatalf("trusted: code %d, hook ran %v, stderr %q", code, ran(marker), errOut)
	}
	if strings.Contains(errOut, "not a trusted folder") {
		t.Errorf("a trusted folder is reported as untrusted: %s", errOut)
	}

	if code, out, errOut := runCLI(t, "", "trust", "--revoke", dir); code != 0 || !strings.Contains(out, "No longer trusted: "+dir) {
		t.Fatalf("revoke: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := runCLI(t, "", read...); code != 0 || ran(marker) {
		t.Errorf("after revoking: code %d, hook ran %v", code, ran(marker))
	}
	if code, _, errOut := runCLI(t, "", "trust", "--revoke", dir); code != 1 || !strings.Contains(errOut, "was not trusted") {
		t.Errorf("revoking twice: code %d, %q", code, errOut)
	}
}

func TestCallWithBypassChosenTrustsTheFolder(t *testing.T) {
	dir, marker := hostileFolder(t)
	code, _, errOut := runCLI(t, "", "call", "--root", dir, "--mode", "bypassPermissions", "Read", `{"file_path":"a.txt"}`)
	if code != 0 || !ran(marker) {
		t.Errorf("--mode bypassPermissions typed by the user: code %d, hook ran %v, stderr %q", code, ran(marker), errOut)
	}
}
