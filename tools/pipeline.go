package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// Request is one call as a client sends it.
type Request struct {
	CallID string          `json:"callId,omitempty"`
	Name   string          `json:"name"`
	Input  json.RawMessage `json:"input"`
}

// Response is the result of one call with its timing, as toolhost/callTool
// returns it.
type Response struct {
	CallID string `json:"callId,omitempty"`
	*Result
	DurationMs int64 `json:"durationMs"`
}

// Pipeline runs calls: look up, validate, check permission, run hooks,
// report progress, execute. Every mode (editor, MCP, CLI) calls tools only
// through it.
type Pipeline struct {
	Registry *Registry
	Log      *slog.Logger
}

// NewPipeline returns a pipeline over reg.
func NewPipeline(reg *Registry, log *slog.Logger) *Pipeline {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Pipeline{Registry: reg, Log: log}
}

// Call runs one call for host. It returns a Go error only when ctx ended
// before a result was ready (the caller answers -32800); every other failure
// is a Result with IsError.
func (p *Pipeline) Call(ctx context.Context, host Host, req Request) (*Response, error) {
	start := time.Now()
	if host == nil {
		host = NoHost{}
	}
	res, err := p.run(ctx, host, req)
	if err != nil {
		return nil, err
	}
	return &Response{CallID: req.CallID, Result: res, DurationMs: time.Since(start).Milliseconds()}, nil
}

func (p *Pipeline) run(ctx context.Context, host Host, req Request) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	entry, ok := p.Registry.Lookup(req.Name)
	if !ok {
		msg := fmt.Sprintf("no tool named %q.", req.Name)
		if s := p.Registry.Suggest(req.Name, 3); len(s) > 0 {
			msg += " Did you mean " + strings.Join(s, ", ") + "?"
		}
		return ErrorResult("%s Call toolhost/listTools for the available tools.", msg), nil
	}
	if !entry.Enabled {
		return ErrorResult("the tool %s is disabled; enable it with toolhost/setToolsEnabled or the tools.enabled setting.", entry.Tool.Name()), nil
	}
	input := req.Input
	if len(input) == 0 || string(input) == "null" {
		input = json.RawMessage("{}")
	}
	progress := host.BeginProgress(ctx, entry.Tool.Name(), nil)
	res, err := entry.Tool.Execute(ctx, &Call{ID: req.CallID, Name: req.Name, Input: input, Host: host, Progress: progress})
	progress.End("")
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		p.Log.Error("tool failed", "tool", entry.Tool.Name(), "err", err)
		return ErrorResult("%s failed: %v. This is a failure of the tool host, not of the input; retrying may help.", entry.Tool.Name(), err), nil
	}
	if res == nil {
		res = TextResult("")
	}
	return res, nil
}
