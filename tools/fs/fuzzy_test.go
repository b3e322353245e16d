package fs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

func TestReadFuzzyAndAtRootPaths(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	for name, text := range map[string]string{"config.yaml": "a: 1\n", "main.go": "package main\n", "main_test.go": "package main\n", "src/util.go": "package src\n"} {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "secrets.txt")); err != nil {
		t.Fatal(err)
	}
	ws := workspace.New(root)
	r := NewRead(ws)
	read := func(path string) *tools.Result {
		t.Helper()
		in, _ := json.Marshal(map[string]string{"file_path": path})
		res, err := r.Execute(t.Context(), &tools.Call{Input: in})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	cases := []struct {
		name, path   string
		atRoot, fuzz bool
		wantError    bool
		want         string
	}{
		{"off: a typo is an error with suggestions", "config.yml", false, false, true, "Did you mean"},
		{"fuzzy: the single close match is read", "config.yml", false, true, false, "a: 1\n\nNote: " + filepath.Join(root, "config.yml") + " does not exist; read " + filepath.Join(root, "config.yaml")},
		{"fuzzy: two close matches stay an error", "main.g", false, true, true, "does not exist"},
		{"fuzzy: a close match that leaves the workspace is not taken", "secret.txt", false, true, true, "does not exist"},
		{"fuzzy: an existing file is read as it is", "main.go", false, true, false, "package main"},
		{"off: @ is part of the name", "@src/util.go", false, false, true, "does not exist"},
		{"atRoot: @ is the root", "@src/util.go", true, false, false, "package src"},
		{"atRoot: @/ is the root too", "@/src/util.go", true, false, false, "package src"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws.SetPathOptions(tc.atRoot, tc.fuzz)
			res := read(tc.path)
			if res.IsError != tc.wantError || !strings.Contains(res.Text(), tc.want) {
				t.Errorf("IsError=%v text=%q; want IsError=%v with %q", res.IsError, res.Text(), tc.wantError, tc.want)
			}
		})
	}
	// Permission rules see the file that is read.
	ws.SetPathOptions(false, true)
	if a := r.Access(json.RawMessage(`{"file_path":"config.yml"}`)); len(a.ReadPaths) != 1 || a.ReadPaths[0] != filepath.Join(root, "config.yaml") {
		t.Errorf("Access = %+v", a)
	}
}
