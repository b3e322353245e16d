package permission

import (
	"runtime"
	"testing"
)

// An absolute path takes the form rules write after "//": Claude Code's
// POSIX form of a Windows path (the drive letter as the first folder).
func TestRulePath(t *testing.T) {
	tests := []struct{ abs, want string }{
		{"/etc/hosts", "/etc/hosts"},
		{"/", "/"},
	}
	if runtime.GOOS == "windows" {
		tests = []struct{ abs, want string }{
			{`C:\Users\a\.env`, "/c/Users/a/.env"},
			{`d:\x`, "/d/x"},
			{`C:\`, "/c/"},
			{`\\server\share\dir\f`, "/server/share/dir/f"},
		}
	}
	for _, tc := range tests {
		if got := rulePath(tc.abs); got != tc.want {
			t.Errorf("rulePath(%q) = %q, want %q", tc.abs, got, tc.want)
		}
	}
}

// A "//" rule matches an absolute path in its rule form, on Windows by
// drive letter.
func TestFilesystemRuleMatches(t *testing.T) {
	abs, other := "/home/u/.env", "/srv/.env"
	if runtime.GOOS == "windows" {
		abs, other = `C:\Users\u\.env`, `D:\Users\u\.env`
	}
	pp := compilePathPattern("//" + rulePath(abs)[1:])
	if !pp.matchUnder("/", abs, false) {
		t.Errorf("//%s does not match %s", rulePath(abs)[1:], abs)
	}
	if pp.matchUnder("/", other, false) {
		t.Errorf("//%s matches %s", rulePath(abs)[1:], other)
	}
}
