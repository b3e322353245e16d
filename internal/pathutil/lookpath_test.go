package pathutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLookPathAbsPassesOverRelativeEntries: a relative PATH entry ahead
// of the folder that holds the program neither hides the program (as
// exec.LookPath's ErrDot did) nor supplies the working folder's copy.
func TestLookPathAbsPassesOverRelativeEntries(t *testing.T) {
	installed := t.TempDir()
	work := t.TempDir()
	for _, dir := range []string{installed, filepath.Join(work, "bin")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "toolhost-probe"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(work)
	tests := []struct {
		path, want string
	}{
		{"bin" + string(os.PathListSeparator) + installed, installed},
		{"." + string(os.PathListSeparator) + "bin" + string(os.PathListSeparator) + installed, installed},
		{"bin", ""},
	}
	for _, tt := range tests {
		t.Setenv("PATH", tt.path)
		got, err := LookPathAbs("toolhost-probe")
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("PATH=%s: found %s, want nothing (only a relative entry has it)", tt.path, got)
		case tt.want != "" && (err != nil || !strings.HasPrefix(got, tt.want)):
			t.Errorf("PATH=%s: %q, %v; want the copy in %s", tt.path, got, err, tt.want)
		}
	}
}
