package permission

import (
	"strings"
	"testing"

	"github.com/toolhost/toolhost/tools"
)

var powerShellTool = fakeTool{name: "PowerShell", effect: tools.SideEffectNetwork}

func powerShell(cmd string) call {
	return call{tool: powerShellTool, access: tools.Access{Command: cmd, Exclusive: []string{"shell"}}}
}

// PowerShell rules as Claude Code spells them, decided by the conservative
// reader: one command of plain words and quoted literals is matched, any
// other command is asked about, and deny rules hold against aliases, case
// and .exe.
func TestPowerShellRules(t *testing.T) {
	tests := []struct {
		name  string
		allow string
		deny  string
		cmd   string
		want  verdict
	}{
		{"prefix", `["PowerShell(Get-ChildItem:*)"]`, `[]`, "Get-ChildItem -Recurse src", allowed},
		{"prefix alone", `["PowerShell(Get-ChildItem:*)"]`, `[]`, "Get-ChildItem", allowed},
		{"prefix in any case", `["PowerShell(Get-ChildItem:*)"]`, `[]`, "get-childitem src", allowed},
		{"rule in any case", `["PowerShell(get-childitem:*)"]`, `[]`, "Get-ChildItem src", allowed},
		{"prefix is word bounded", `["PowerShell(git log:*)"]`, `[]`, "git logx", asked},
		{"quoted literals", `["PowerShell(git commit:*)"]`, `[]`, `git commit -m 'it''s done' -m "second line"`, allowed},
		{"exact", `["PowerShell(git status)"]`, `[]`, "git status", allowed},
		{"exact rejects more", `["PowerShell(git status)"]`, `[]`, "git status --short", asked},
		{"wildcard", `["PowerShell(npm run *)"]`, `[]`, "npm run build", allowed},
		{"bare tool", `["PowerShell"]`, `[]`, "Remove-Item -Recurse C:\\x; iex $y", allowed},
		{"statement separator asks", `["PowerShell(git status:*)"]`, `[]`, "git status; Remove-Item x", asked},
		{"pipeline asks", `["PowerShell(Get-ChildItem:*)"]`, `[]`, "Get-ChildItem | Remove-Item", asked},
		{"chain operator asks", `["PowerShell(npm test:*)"]`, `[]`, "npm test && rm x", asked},
		{"variable asks", `["PowerShell(Write-Output:*)"]`, `[]`, "Write-Output $env:SECRET", asked},
		{"subexpression asks", `["PowerShell(Write-Output:*)"]`, `[]`, `Write-Output "$(Remove-Item x)"`, asked},
		{"script block asks", `["PowerShell(Get-ChildItem:*)"]`, `[]`, "Get-ChildItem { Remove-Item x }", asked},
		{"splatting asks", `["PowerShell(Copy-Item:*)"]`, `[]`, "Copy-Item @args", asked},
		{"escape character asks", "[\"PowerShell(git log:*)\"]", `[]`, "git log `\n Remove-Item x", asked},
		{"redirection asks", `["PowerShell(Get-Content:*)"]`, `[]`, "Get-Content a > .git/config", asked},
		{"type literal asks", `["PowerShell(Write-Output:*)"]`, `[]`, "Write-Output [IO.File]::Delete", asked},
		{"call operator asks", `["PowerShell(Get-ChildItem:*)"]`, `[]`, "& 'Get-ChildItem'", asked},
		{"dot-sourcing asks", `["PowerShell(.:*)"]`, `[]`, ". ./profile.ps1", asked},
		{"quoted first word asks", `["PowerShell(Get-ChildItem:*)"]`, `[]`, "'Get-ChildItem' x", asked},
		{"unclosed quote asks", `["PowerShell(git commit:*)"]`, `[]`, "git commit -m 'x", asked},
		{"Unicode dash asks", `["PowerShell(Get-ChildItem:*)"]`, `[]`, "Get-ChildItem \u2013Recurse", asked},
		{"line break asks", `["PowerShell(git status:*)"]`, `[]`, "git status\nRemove-Item x", asked},
		{"alias needs its cmdlet allowed too", `["PowerShell(ls:*)"]`, `[]`, "ls src", asked},
		{"alias with its cmdlet allowed", `["PowerShell(ls:*)", "PowerShell(Get-ChildItem:*)"]`, `[]`, "ls src", allowed},
		{"deny by cmdlet stops the alias", `["PowerShell"]`, `["PowerShell(Remove-Item:*)"]`, "rm -Recurse src", denied},
		{"deny in any case", `["PowerShell"]`, `["PowerShell(Remove-Item:*)"]`, "REMOVE-ITEM src", denied},
		{"deny stops .exe and a path", `["PowerShell"]`, `["PowerShell(git push:*)"]`, `C:\Git\cmd\git.exe push origin`, denied},
		{"deny stops a module-qualified name", `["PowerShell"]`, `["PowerShell(Remove-Item:*)"]`, `Microsoft.PowerShell.Management\Remove-Item x`, denied},
		{"deny refuses what it cannot read", `["PowerShell"]`, `["PowerShell(Remove-Item:*)"]`, "Get-ChildItem | Remove-Item", denied},
		{"Bash rules do not cover PowerShell", `["Bash(git status:*)"]`, `[]`, "git status", asked},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, `{"permissions": {"allow": `+tc.allow+`, "deny": `+tc.deny+`}}`)
			got, out, _ := run(t, e.checker(""), powerShell(tc.cmd))
			if got != tc.want {
				t.Errorf("got %s (%q), want %s", got, out.Message, tc.want)
			}
		})
	}
}

// A command the reader does not read says why, in PowerShell's terms.
func TestPowerShellUnreadSaysWhy(t *testing.T) {
	for cmd, want := range map[string]string{
		"a | b":           "it holds `|`",
		"a `b":            "a backtick",
		"a 'b":            "a quote is not closed",
		"'a' b":           "its first word is quoted",
		"a \u201cb\u201d": "Unicode dash or quote",
	} {
		sc := readPowerShell(cmd, "")
		sub := subject{command: &sc, powerShell: true}
		if !blind(&sc) || !strings.Contains(sub.blindness(), want) || strings.Contains(sub.blindness(), "bash") {
			t.Errorf("%q: blind %v, %q, want it to say %q", cmd, blind(&sc), sub.blindness(), want)
		}
	}
}
