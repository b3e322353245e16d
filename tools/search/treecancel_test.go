package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

// cancelledAfter is a context whose Err reports a cancel from its n-th
// call on: a cancel that arrives while work is under way, at a point
// chosen by how often the work looks.
type cancelledAfter struct {
	context.Context
	n     int32
	calls atomic.Int32
}

func (c *cancelledAfter) Err() error {
	if c.calls.Add(1) >= c.n {
		return context.Canceled
	}
	return nil
}

// TestTreeCancelReachesTheEntriesOfOneFolder: Tree looks for a cancel
// while it matches one folder's entries against the ignore rules (which a
// huge .gitignore makes slow), not only once per folder.
func TestTreeCancelReachesTheEntriesOfOneFolder(t *testing.T) {
	dir := t.TempDir()
	files := map[string]int{}
	for i := range 300 {
		files[fmt.Sprintf("f%03d.txt", i)] = 1
	}
	makeFiles(t, dir, files)
	ctx := &cancelledAfter{Context: context.Background(), n: 3}
	_, err := NewTree(workspace.New(dir)).Execute(ctx, &tools.Call{Input: json.RawMessage(`{}`)})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Execute = %v, want the cancel seen within the folder", err)
	}
}
