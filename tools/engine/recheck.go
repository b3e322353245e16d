package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/toolhost/toolhost/tools"
)

// recheck passes input that a permission answer or a PreToolUse hook
// rewrote through the permission check again, as if the call had come with
// it: the deny rules, plan mode and the refusal of writes outside the
// workspace apply to what will run, not to what was asked. It returns the
// input to run with, or the result that ends the call.
//
// Input the user edited in the permission dialog was approved as it is, so
// a prompt for exactly that input is answered "allow" without asking again
// (no call is asked twice); input a hook rewrote was never shown, so asking
// goes to the user.
func (p *Pipeline) recheck(ctx context.Context, c *callState, input json.RawMessage, userApproved bool) (json.RawMessage, *tools.Result, error) {
	if p.Permissions == nil {
		return input, nil, nil
	}
	host := c.host
	if userApproved {
		host = approvedHost{Host: c.host, input: input}
	}
	access := p.access(c.tool, input, nil)
	out, err := p.Permissions.Check(ctx, host, tools.PermissionCall{CallID: c.req.CallID, Tool: c.tool, Input: input, Access: access, Risk: p.risk(c.tool, input)})
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, tools.ErrorResult("the permission check of the changed input of %s failed (%v), so the call did not run.", c.tool.Name(), err), nil
	}
	if !out.Allow {
		return nil, denied(c.tool.Name(), out.Message), nil
	}
	// The reads outside the workspace approved are those of this input.
	c.approvedReads = out.ApprovedReads
	if len(out.UpdatedInput) > 0 && !bytes.Equal(out.UpdatedInput, input) {
		// The user edited the input again while confirming it.
		if res := p.validate(c.tool, out.UpdatedInput, "the input as the user changed it"); res != nil {
			return nil, res, nil
		}
		return out.UpdatedInput, nil, nil
	}
	return input, nil, nil
}

// approvedHost answers a permission prompt for input the user has just
// approved, and passes every other prompt on.
type approvedHost struct {
	tools.Host
	input json.RawMessage
}

func (h approvedHost) RequestPermission(ctx context.Context, req tools.PermissionRequest) (tools.PermissionResponse, error) {
	if shown, err := json.Marshal(req.Input); err == nil && sameJSON(shown, h.input) {
		return tools.PermissionResponse{Decision: tools.DecisionAllow}, nil
	}
	return h.Host.RequestPermission(ctx, req)
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
