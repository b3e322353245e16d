package ignore

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
)

// TestWalkCancelReachesTheEntriesOfOneFolder: a cancel that comes while a
// folder's entries are being matched (against a huge ignore file, say)
// stops the walk at the next entry, not after the whole folder.
func TestWalkCancelReachesTheEntriesOfOneFolder(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 500 {
		files[fmt.Sprintf("f%03d", i)] = "x"
	}
	writeTree(t, dir, files)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var judged atomic.Int32
	err := Walk(ctx, dir, Options{Override: func(rel, name string, isDir bool) Verdict {
		// Matching the first entry takes "long enough" that the user
		// gives up meanwhile.
		if judged.Add(1) == 1 {
			cancel()
		}
		return NoVerdict
	}}, func(File) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("walk returned %v, want it cancelled", err)
	}
	if n := judged.Load(); n > 1 {
		t.Errorf("%d entries were matched after the cancel, want none", n-1)
	}
}
