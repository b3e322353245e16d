package tools

import (
	"context"
	"strings"
)

// CheckPermission answers what Call would decide about the permission of
// req, without running the tool, its hooks or any prompt: the tool is
// looked up, the input validated, its access and risk worked out as for a
// call, and the permission checker's decision returned. A call the pipeline
// would refuse before the permission check (an unknown or disabled tool,
// invalid input) is a denial whose reason is the error the model would
// get. PreToolUse hooks run commands, so they are not consulted: a hook
// may still refuse or ask when the call runs.
func (p *Pipeline) CheckPermission(ctx context.Context, req Request) (PermissionDecision, error) {
	if err := ctx.Err(); err != nil {
		return PermissionDecision{}, err
	}
	refused := func(r *Result) PermissionDecision {
		return PermissionDecision{Decision: PermissionDeny, Reason: strings.TrimPrefix(r.Text(), "Error: ")}
	}
	entry, ok := p.Registry.Lookup(req.Name)
	if !ok || !entry.Enabled {
		// The same words as a call's.
		res, err := p.run(ctx, &callState{req: req, host: NoHost{}})
		if err != nil {
			return PermissionDecision{}, err
		}
		return refused(res), nil
	}
	input := normalInput(req.Input)
	if res := p.validate(entry.Tool, input, ""); res != nil {
		return refused(res), nil
	}
	decider, ok := p.Permissions.(PermissionDecider)
	if !ok {
		// No checker allows every call; a checker that cannot answer
		// without asking is asked when the call runs.
		if p.Permissions == nil {
			return PermissionDecision{Decision: PermissionAllow}, nil
		}
		return PermissionDecision{Decision: PermissionAsk, Reason: "the permission checker decides when the call runs"}, nil
	}
	return decider.Decide(ctx, PermissionCall{CallID: req.CallID, Tool: entry.Tool, Input: input,
		Access: p.access(entry.Tool, input), Risk: p.risk(entry.Tool, input)})
}
