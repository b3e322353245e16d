package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// -dir generates only into a new or empty folder; -tree leaves the tree it
// times as it was.
func TestPrepareTree(t *testing.T) {
	populated := t.TempDir()
	mine := filepath.Join(populated, "my-notes.txt")
	if err := os.WriteFile(mine, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	list := func(dir string) []string {
		entries, _ := os.ReadDir(dir)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return names
	}

	_, _, err := prepareTree(populated, "", 20)
	if err == nil || !strings.Contains(err.Error(), "not empty") || !strings.Contains(err.Error(), "-tree "+populated) {
		t.Errorf("-dir with a populated folder: %v, want a refusal pointing at -tree", err)
	}
	if got := list(populated); len(got) != 1 {
		t.Errorf("the refused folder now holds %v", got)
	}

	root, cleanup, err := prepareTree("", populated, 20)
	if err != nil || root != populated {
		t.Fatalf("-tree: %q, %v", root, err)
	}
	cleanup()
	if got := list(populated); len(got) != 1 {
		t.Errorf("-tree changed the tree: %v", got)
	}

	for _, dir := range []string{t.TempDir(), filepath.Join(t.TempDir(), "new")} {
		root, cleanup, err := prepareTree(dir, "", 20)
		if err != nil {
			t.Fatalf("-dir %s: %v", dir, err)
		}
		if len(list(root)) == 0 {
			t.Errorf("-dir %s: nothing generated", dir)
		}
		cleanup()
	}

	// A folder an earlier -dir run generated is timed again with the same
	// -files, and refused with another.
	generated := t.TempDir()
	if _, _, err := prepareTree(generated, "", 20); err != nil {
		t.Fatal(err)
	}
	before := list(generated)
	if root, _, err := prepareTree(generated, "", 20); err != nil || root != generated || !slices.Equal(list(generated), before) {
		t.Errorf("-dir of a tree generated with the same -files: %q, %v; want it timed as it is", root, err)
	}
	if _, _, err := prepareTree(generated, "", 21); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("-dir of a tree generated with other -files: %v, want a refusal", err)
	}

	if _, _, err := prepareTree(t.TempDir(), populated, 20); err == nil {
		t.Error("-dir and -tree together were accepted")
	}
	if _, _, err := prepareTree("", mine, 20); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("-tree of a file: %v", err)
	}
}
