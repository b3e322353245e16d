package pwsh

import (
	"slices"
	"strings"
	"testing"
)

// A command of plain words and quoted literals is split as PowerShell
// splits it; anything else is unread and says why.
func TestWords(t *testing.T) {
	tests := []struct {
		cmd  string
		want []string
		why  string
	}{
		{cmd: "Get-ChildItem -Recurse src", want: []string{"Get-ChildItem", "-Recurse", "src"}},
		{cmd: `git commit -m 'it''s done' -m "a ""b"""`, want: []string{"git", "commit", "-m", "it's done", "-m", `a "b"`}},
		{cmd: "git\tlog  x", want: []string{"git", "log", "x"}},
		{cmd: "a; b", why: "it holds `;`"},
		{cmd: "a `b", why: "a backtick"},
		{cmd: "a\nb", why: "a line break"},
		{cmd: "a 'b", why: "a quote is not closed"},
		{cmd: "'a' b", why: "its first word is quoted"},
		{cmd: ". ./profile.ps1", why: "dot-sources"},
		{cmd: "  ", why: "it is empty"},
		{cmd: "a \u2013b", why: "Unicode dash or quote"},
	}
	for _, tc := range tests {
		got, err := Words(tc.cmd)
		switch {
		case tc.why == "" && (err != nil || !slices.Equal(got, tc.want)):
			t.Errorf("Words(%q) = %q, %v; want %q", tc.cmd, got, err, tc.want)
		case tc.why != "" && (err == nil || !strings.Contains(err.Error(), tc.why)):
			t.Errorf("Words(%q) = %q, %v; want an error saying %q", tc.cmd, got, err, tc.why)
		}
	}
}

// Name is what PowerShell finds a command by, so that a rule on a cmdlet
// also holds against its aliases, a path and .exe.
func TestName(t *testing.T) {
	for word, want := range map[string]string{
		"Remove-Item":                        "remove-item",
		"rm":                                 "remove-item",
		"DEL":                                "remove-item",
		`C:\Git\cmd\git.exe`:                 "git",
		`Microsoft.PowerShell.Management\rm`: "remove-item",
		"npm":                                "npm",
		`dir\`:                               `dir\`,
	} {
		if got := Name(word); got != want {
			t.Errorf("Name(%q) = %q, want %q", word, got, want)
		}
	}
}
