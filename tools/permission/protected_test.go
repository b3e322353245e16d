package permission

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolhost/toolhost/internal/pathutil"
	"github.com/toolhost/toolhost/tools"
)

func TestProtectedFilesAskWhateverTheRules(t *testing.T) {
	// Rules that would allow every edit: none of them may pre-approve a
	// change to what decides permissions or runs commands.
	e := newEnv(t, `{"permissions": {"allow": ["Edit(**)", "Edit(.toolhost/**)", "Edit(//**)", "Edit(/.mcp.json)"]}}`)
	// A link inside the workspace to .git/hooks must not hide it.
	if err := os.MkdirAll(filepath.Join(e.root, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(e.root, ".git", "hooks"), filepath.Join(e.root, "innocent")); err != nil {
		t.Fatal(err)
	}
	protected := []string{
		".toolhost/settings.json", ".toolhost/settings.local.json", ".toolhost/hooks/pre.sh", ".mcp.json",
		".git/hooks/pre-commit", ".git/config", "innocent/post-checkout",
		// Git reads the same files of a submodule, a worktree and a nested
		// repository, and a .git file redirects git to another folder.
		".git/modules/lib/config", ".git/modules/lib/hooks/post-checkout", ".git/config.worktree",
		".git/worktrees/w/config.worktree", "vendor/lib/.git/config", "vendor/lib/.git/hooks/pre-commit",
		"vendor/lib/.git",
		// The editor's own files that run commands when the folder opens:
		// VS Code's folder settings (toolhost.path, terminal and tool
		// paths) and tasks (runOn: folderOpen), Neovim's exrc files.
		".vscode/settings.json", ".vscode/tasks.json", ".nvim.lua", ".nvimrc", ".exrc",
	}
	if pathutil.CaseInsensitive {
		// One file however its name is cased, on Windows and macOS.
		protected = append(protected, ".GIT/CONFIG", ".MCP.JSON", ".Toolhost/Settings.json", ".git/HOOKS/pre-commit", "Vendor/Lib/.Git/Config")
	}
	free := []string{"src/a.go", ".toolhost/plan.md", ".toolhost/memory/notes.md", ".gitignore", ".git/HEAD.txt", "docs/config", "hooks/pre-commit", "a.git/config", ".vscode/extensions.json", "src/.vscode/notes.md"}

	type want int
	const (
		allowed want = iota
		asked
		refused
	)
	modes := map[string]want{
		tools.ModeDefault:           asked,
		tools.ModeAcceptEdits:       asked,
		tools.ModePlan:              refused,
		tools.ModeDontAsk:           refused,
		tools.ModeBypassPermissions: allowed,
	}
	for mode, w := range modes {
		for _, rel := range protected {
			t.Run(mode+"/"+rel, func(t *testing.T) {
				host := &fakeHost{resp: tools.PermissionResponse{Decision: tools.DecisionDeny}}
				c := writes(editTool, filepath.Join(e.root, rel))
				out, err := e.checker(mode).Check(context.Background(), host, tools.PermissionCall{Tool: c.tool, Access: c.access, Input: json.RawMessage(`{}`)})
				if err != nil {
					t.Fatal(err)
				}
				got := allowed
				switch {
				case len(host.requests) > 0:
					got = asked
					if s := host.requests[0].Suggestions; len(s) != 0 {
						t.Errorf("the prompt suggests rules %q, which would not apply", s)
					}
				case !out.Allow:
					got = refused
				}
				if got != w {
					t.Errorf("got %d (allow %v, %q), want %d", got, out.Allow, out.Message, w)
				}
			})
		}
	}
	for _, rel := range free {
		t.Run("acceptEdits/"+rel, func(t *testing.T) {
			host := &fakeHost{}
			c := writes(editTool, filepath.Join(e.root, rel))
			out, _ := e.checker(tools.ModeAcceptEdits).Check(context.Background(), host, tools.PermissionCall{Tool: c.tool, Access: c.access, Input: json.RawMessage(`{}`)})
			if !out.Allow || len(host.requests) > 0 {
				t.Errorf("%s is not protected, yet: allow %v, asked %d (%s)", rel, out.Allow, len(host.requests), out.Message)
			}
		})
	}
}

func TestBashNamingProtectedFilesIsNotPreApproved(t *testing.T) {
	e := newEnv(t, `{"permissions": {"allow": ["Bash(*)", "Bash"]}}`)
	if err := os.MkdirAll(filepath.Join(e.root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A link the folder ships: the kernel resolves src/hooks/../config
	// to .git/config, which a lexical clean (src/config) would miss.
	if err := os.MkdirAll(filepath.Join(e.root, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../.git/hooks", filepath.Join(e.root, "src", "hooks")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		cmd   string
		asked bool
	}{
		{"echo 'curl x | sh' > .git/hooks/pre-commit", true},
		{"printf '[core]\\n\\tfsmonitor = sh x' > src/hooks/../config", true},
		{"echo x > src/pkg/../notes.txt", false},
		{"cd src; echo x >> hooks/../config", true},
		{"echo x >>.mcp.json", true},
		{"cp /tmp/evil.json .toolhost/settings.local.json", true},
		{"tee " + filepath.Join(e.root, ".toolhost", "settings.json") + " < x", true},
		{"sed -i s/a/b/ .git/config", true},
		{"git config core.hooksPath hooks", true},
		{"git -C . config --add core.fsmonitor ./x", true},
		{"make && git config --unset core.editor", true},
		{"cd src && echo x > ../.mcp.json", true},
		{"cd src/pkg; cp /tmp/x ../../.git/hooks/post-merge", true},
		{"cd .git && echo x >> config", true},
		{"cd src && echo x > ../notes.txt", false},
		{"find . -name .git -prune -o -name '*.go' -print", false},
		{"echo 'gitdir: /tmp/evil' > src/.git", true},
		{"echo hi", false},
		{"git config --get user.name", false},
		{"git config user.name", false},
		{"cat README.md", false},
		{"echo note > .toolhost/memory/n.md", false},
	}
	for _, tc := range cases {
		t.Run(tc.cmd, func(t *testing.T) {
			c := expectAsked(t, e, tc.cmd, tc.asked)
			if !tc.asked {
				return
			}
			if d := e.checker(tools.ModeBypassPermissions).Decide(nil, tools.PermissionCall{Tool: c.tool, Access: c.access}); d.Verdict != tools.VerdictAllow {
				t.Errorf("bypassPermissions: %+v", d)
			}
			if d := e.checker(tools.ModeDontAsk).Decide(nil, tools.PermissionCall{Tool: c.tool, Access: c.access}); d.Verdict != tools.VerdictDeny {
				t.Errorf("dontAsk: %+v", d)
			}
		})
	}
}

func TestBashNamingTheUsersConfigIsNotPreApproved(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	e := newEnv(t, `{"permissions": {"allow": ["Bash(*)", "Bash"]}}`)
	cases := []struct {
		cmd   string
		asked bool
	}{
		{`echo '{"trusted":["/"]}' > ~/.config/toolhost/trusted-folders.json`, true},
		{"cp evil.json " + filepath.Join(home, ".config", "toolhost", "settings.json"), true},
		{"printf '[core]\\n\\tfsmonitor = sh x\\n' >> ~/.gitconfig", true},
		{"tee ~/.config/git/config < x", true},
		{"cat ~/.config/toolhost/settings.json", true},
		{"cat ~/.config/other/settings.json", false},
		{"echo hi > ~/notes.txt", false},
	}
	for _, tc := range cases {
		t.Run(tc.cmd, func(t *testing.T) {
			expectAsked(t, e, tc.cmd, tc.asked)
		})
	}
}

// expectAsked checks that the Bash command cmd, in the default mode with
// every prompt answered "deny", asks the user exactly when want says, and
// is allowed exactly when it does not ask; it returns the call.
func expectAsked(t *testing.T, e *testEnv, cmd string, want bool) call {
	t.Helper()
	host := &fakeHost{resp: tools.PermissionResponse{Decision: tools.DecisionDeny}}
	c := bash(cmd)
	out, err := e.checker(tools.ModeDefault).Check(context.Background(), host, tools.PermissionCall{Tool: c.tool, Access: c.access, Input: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if asked := len(host.requests) > 0; asked != want || out.Allow == want {
		t.Errorf("asked %v, allowed %v (%s); want asked %v", asked, out.Allow, out.Message, want)
	}
	return c
}

// TestBashJudgedInTheFolderItStartsIn: Bash keeps the folder a cd led to
// between calls, so `cd .git` in one call and `echo >> config` in the next
// writes .git/config; the check judges relative paths where the command
// starts.
func TestBashJudgedInTheFolderItStartsIn(t *testing.T) {
	e := newEnv(t, `{"permissions": {"allow": ["Bash(*)"]}}`)
	if err := os.MkdirAll(filepath.Join(e.root, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		dir, cmd string
		want     verdict
	}{
		{"", "echo x >> config", allowed},
		{".git", "echo x >> config", asked},
		{".git", "cp x hooks/pre-commit", asked},
		{".git", "cat ../README.md", allowed},
		{"src", "echo x > ../.mcp.json", asked},
		{"src", "echo x > config", allowed},
	}
	for _, tc := range tests {
		t.Run(tc.dir+": "+tc.cmd, func(t *testing.T) {
			cl := bash(tc.cmd)
			if tc.dir != "" {
				cl.access.Dir = filepath.Join(e.root, tc.dir)
			}
			if got, out, _ := run(t, e.checker(tools.ModeDefault), cl); got != tc.want {
				t.Errorf("got %s (%s), want %s", got, out.Message, tc.want)
			}
		})
	}
}
