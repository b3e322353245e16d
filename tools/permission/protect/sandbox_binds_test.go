package protect

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// SandboxBinds names the protected files that exist (submodules' and
// worktrees' git files included), pins the folders above them, keeps the
// notes writable, and leaves plain files and missing ones alone.
func TestSandboxBinds(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{
		".git/config", ".git/hooks/pre-commit", ".git/modules/lib/config", ".git/worktrees/w/config.worktree",
		".git/HEAD", ".toolhost/settings.json", ".toolhost/memory/a.md", ".vscode/tasks.json", ".vscode/launch.json",
		".mcp.json", "src/a.txt",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	abs := func(names ...string) []string {
		var out []string
		for _, n := range names {
			out = append(out, filepath.Join(root, filepath.FromSlash(n)))
		}
		slices.Sort(out)
		return out
	}
	pin, readOnly, writable := SandboxBinds(root)
	slices.Sort(readOnly)
	if want := abs(".git/config", ".git/hooks", ".git/modules/lib/config", ".git/worktrees/w/config.worktree", ".mcp.json", ".toolhost", ".vscode/tasks.json"); !slices.Equal(readOnly, want) {
		t.Errorf("read-only:\n got %v\nwant %v", readOnly, want)
	}
	if want := abs(".toolhost/memory"); !slices.Equal(writable, want) {
		t.Errorf("writable: got %v, want %v", writable, want)
	}
	// Parents come before their children.
	if want := abs(".git", ".vscode"); len(pin) < 2 || !slices.Equal(abs(pin[0][len(root)+1:], pin[1][len(root)+1:]), want) {
		t.Errorf("pinned first: got %v, want %v", pin, want)
	}
	for _, p := range abs(".git/modules", ".git/modules/lib", ".git/worktrees", ".git/worktrees/w") {
		if !slices.Contains(pin, p) {
			t.Errorf("%s is not pinned: %v", p, pin)
		}
	}
}

// A link among the protected files never becomes a writable bind: that
// would make where it points writable in the sandbox.
func TestSandboxBindsLinks(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	for _, name := range []string{"config", "memory/a.md"} {
		p := filepath.Join(outside, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(root, ".git")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, ".toolhost"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "memory"), filepath.Join(root, ".toolhost", "memory")); err != nil {
		t.Fatal(err)
	}
	pin, readOnly, writable := SandboxBinds(root)
	if len(pin) != 0 || len(writable) != 0 {
		t.Errorf("links became writable binds: pinned %v, writable %v", pin, writable)
	}
	if !slices.Contains(readOnly, filepath.Join(root, ".git", "config")) {
		t.Errorf(".git/config through a link is not read-only: %v", readOnly)
	}
}
