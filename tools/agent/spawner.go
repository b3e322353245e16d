package agent

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/toolhost/toolhost/tools"
)

// SubagentSpawner runs one sub-agent to its end and returns its final
// report. An error means the sub-agent gave no report; its text tells the
// model what happened and what to do next (a *ReportedError carries the
// runner's own words). Spawn returns promptly once ctx is done.
type SubagentSpawner interface {
	Spawn(ctx context.Context, req SpawnRequest) (string, error)
}

// SpawnRequest is one sub-agent to run.
type SpawnRequest struct {
	// CallID is the id of the Agent call.
	CallID string
	// Input is the Agent call's input, and Raw the same as sent (validated).
	Input Input
	Raw   json.RawMessage
	// Host is the Agent call's host: the sub-agent's tool calls reach the
	// user through it (permission prompts, edits, progress).
	Host tools.Host
	// Progress reports what the sub-agent is doing; never nil.
	Progress tools.Progress
	// Mailbox, when set, brings messages to the sub-agent between its
	// turns (built-in runner only).
	Mailbox Mailbox
}

// ReportedError is a failure the runner described itself (the client's
// isError answer); its text goes to the model as it is.
type ReportedError struct {
	Text string
}

func (e *ReportedError) Error() string { return e.Text }

// ClientSpawner runs the sub-agent in the client, through the host's
// toolhost/runAgent (tools.AgentRunner).
type ClientSpawner struct{}

// Spawn sends the Agent input to the client and returns the text of its
// answer.
func (ClientSpawner) Spawn(ctx context.Context, req SpawnRequest) (string, error) {
	r, ok := req.Host.(tools.AgentRunner)
	if !ok || !r.CanRunAgent() {
		return "", errors.New("the editor does not run agents (capabilities.experimental.toolhost.runAgent)")
	}
	raw := req.Raw
	if len(raw) == 0 {
		var err error
		if raw, err = json.Marshal(req.Input); err != nil {
			return "", err
		}
	}
	res, err := r.RunAgent(ctx, req.CallID, raw)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", &ReportedError{Text: "the editor could not run the sub-agent (" + err.Error() + "). Do the task yourself, or ask the user to check the editor's agent."}
	}
	if res.IsError {
		return "", &ReportedError{Text: res.Text()}
	}
	return res.Text(), nil
}
