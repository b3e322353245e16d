package fs

import (
	"bytes"
	"context"
	"errors"
	"hash/maphash"
	"io/fs"
	"sync/atomic"
	"unicode/utf8"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

// change is what Edit, Write and NotebookEdit share of one call, their one
// change path: the input decoded once (Decode), the file read and the new
// content worked out once before the permission prompt (Prepare, whose
// work the prompt's preview shows), and the change made through
// workspace.Modify, which takes the prepared content as long as the file
// is still what it was prepared on and plans again only when it changed
// under its lock.
type change struct {
	ws *workspace.Workspace
	// path is the file as the input gives it (Access); abs is it resolved,
	// or bad says why it could not be (Prepare and Execute answer it).
	path string
	abs  string
	bad  *tools.Result
	// prepared is set when the file was read and the change worked out
	// (setBase): base is the content it was worked out on (nil: the file
	// did not exist), kept for the preview until the change is made;
	// baseExists, baseLen and baseSum say what it was once it is dropped.
	// stale is set when the file had changed since the agent's Read.
	prepared   bool
	base       []byte
	baseExists bool
	baseLen    int
	baseSum    uint64
	stale      bool
	// linkedOut is set when abs leads outside the workspace through a
	// link (leadsOutside): the permission checker refuses it, saying where
	// it leads, so the check before the prompt lets it through.
	linkedOut bool
}

// newChange resolves the file a call changes; field names it in errors.
func newChange(ws *workspace.Workspace, field, path string) change {
	c := change{ws: ws, path: path}
	c.abs, c.bad = resolve(ws, field, path)
	return c
}

// Access implements tools.Plan: the file written, as given.
func (c *change) Access() tools.Access {
	if c.path == "" {
		return tools.Access{}
	}
	return tools.Access{WritePaths: []string{c.path}}
}

// load reads the file to prepare a change of it, at most limit bytes: a
// missing file is nil content, no error.
func (c *change) load(ctx context.Context, limit int64) ([]byte, error) {
	old, _, err := c.ws.ReadFileLimit(ctx, c.abs, nil, limit)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		c.linkedOut = leadsOutside(err)
		return nil, err
	}
	return old, nil
}

// checkFresh checks that the file is as the agent's Read left it
// (workspace.CheckFresh's error otherwise); c.stale is set when it changed
// since, which Edit may still apply to.
func (c *change) checkFresh() error {
	err := c.ws.CheckFresh(c.abs)
	var se *workspace.StaleError
	c.stale = errors.As(err, &se) && se.Kind == workspace.ErrStale
	return err
}

// precheck is the answer of Prepare for a result from the tool's own
// preparation: a file that leads outside through a link passes, for the
// permission checker to refuse.
func (c *change) precheck(res *tools.Result) *tools.Result {
	if res != nil && c.linkedOut {
		return nil
	}
	return res
}

// setBase marks the change prepared on old (nil: no file).
func (c *change) setBase(old []byte) {
	c.base, c.baseExists, c.baseLen, c.prepared = old, old != nil, len(old), true
}

// dropBase lets the prepared content go, keeping its hash, before
// workspace.Modify reads the file again: a large file is then held twice
// (what Modify read and the new content), not three times.
func (c *change) dropBase() {
	if c.base != nil {
		c.baseSum = maphash.Bytes(baseSeed, c.base)
		c.base = nil
	}
}

// baseSeed seeds the hashes of prepared contents; maphash because it is
// the fastest hash the standard library has and the hashes never leave
// the process.
var baseSeed = maphash.MakeSeed()

// isBase reports whether current is the content the change was prepared
// on: by length and hash, as the freshness of a Read is judged.
func (c *change) isBase(current []byte) bool {
	if !c.prepared || (current != nil) != c.baseExists || len(current) != c.baseLen {
		return false
	}
	if !c.baseExists {
		return true // prepared on no file, and there is still none
	}
	if c.base != nil {
		return bytes.Equal(current, c.base)
	}
	return maphash.Bytes(baseSeed, current) == c.baseSum
}

// reuse is a plan for workspace.Modification (Plan when stale is false,
// Changed when true): while the current content is what the call was
// prepared on, in the same freshness, it takes the prepared content
// (prepared, which may build it now from current); otherwise it plans
// again with plan.
func (c *change) reuse(stale bool, prepared func(current []byte) []byte, plan func([]byte) ([]byte, error)) func([]byte) ([]byte, error) {
	if plan == nil {
		return nil
	}
	return func(current []byte) ([]byte, error) {
		if c.stale == stale && c.isBase(current) {
			return prepared(current), nil
		}
		return plan(current)
	}
}

// modify makes the change through workspace.Modify, labelled with the
// tool's name: plan and changed (nil for none) are Modification's Plan and
// Changed, used only when the file is no longer what the call was
// prepared on; prepared gives the prepared content otherwise, built on the
// content Modify read (the prepared base is dropped first). A change the
// user accepted in a review of the turn writes exactly what they accepted.
func (c *change) modify(ctx context.Context, call *tools.Call, tool string, limit int64, prepared func(current []byte) []byte, plan, changed func([]byte) ([]byte, error)) (workspace.Modified, error) {
	if call.Accepted != nil && c.prepared {
		return c.modifyAccepted(ctx, call, tool, limit)
	}
	c.dropBase()
	return c.ws.Modify(ctx, call.Host, workspace.Modification{
		Path: c.abs, Label: tool + " " + displayName(c.ws, c.abs), Review: call.ReviewEdits,
		Limit:   limit,
		Plan:    c.reuse(false, prepared, plan),
		Changed: c.reuse(true, prepared, changed),
	})
}

// modifyAccepted writes exactly what the user accepted in a review of the
// turn's changes: no second confirmation, and nothing planned again. A
// file that changed since the change was prepared fails the change (the
// user reviewed a proposal on the old content); the stale check of Modify
// still holds first.
func (c *change) modifyAccepted(ctx context.Context, call *tools.Call, tool string, limit int64) (workspace.Modified, error) {
	accepted := call.Accepted
	same := func(current []byte) ([]byte, error) {
		if c.isBase(current) {
			return accepted, nil
		}
		return nil, resultError{tools.ErrorResult("%s changed after the user reviewed your change, so nothing was written and the user's edits to the proposal are not lost in it. Read the file again and redo the change.", c.abs)}
	}
	var changed func([]byte) ([]byte, error)
	if c.stale {
		// Prepared on a file that changed since the agent's Read (Edit
		// allows it): the review was of that content.
		changed = same
	}
	return c.ws.Modify(ctx, call.Host, workspace.Modification{
		Path: c.abs, Label: tool + " " + displayName(c.ws, c.abs), Limit: limit,
		Plan: same, Changed: changed,
	})
}

// proposal is the prepared change of the file as a tools.Proposal, when
// it can be shown as text: next builds the proposed content.
func (c *change) proposal(tool string, utf16 bool, size int, next func() []byte) (tools.Proposal, bool) {
	if !c.prepared || c.bad != nil || utf16 || len(c.base) > tools.MaxReviewText || size > tools.MaxReviewText || !utf8.Valid(c.base) {
		return tools.Proposal{}, false
	}
	n := next()
	if len(n) > tools.MaxReviewText || !utf8.Valid(n) {
		return tools.Proposal{}, false
	}
	return tools.Proposal{Path: c.abs, Label: tool + " " + displayName(c.ws, c.abs), Old: c.base, New: n}, true
}

// callCounts counts what calls of Edit, Write and NotebookEdit do; tests
// set countsOf to hold that a call decodes its input once and plans its
// change once.
type callCounts struct{ decodes, plans atomic.Int64 }

// countsOf is nil outside tests.
var countsOf atomic.Pointer[callCounts]

func countDecode() {
	if c := countsOf.Load(); c != nil {
		c.decodes.Add(1)
	}
}

func countPlan() {
	if c := countsOf.Load(); c != nil {
		c.plans.Add(1)
	}
}
