package tools

import (
	"context"
	"encoding/json"
)

// fakeTool is a tool the kernel's tests list and describe; it runs
// nothing worth checking.
type fakeTool struct {
	name   string
	schema string
	side   SideEffect
}

func (t *fakeTool) Name() string        { return t.name }
func (t *fakeTool) Description() string { return t.name + " is a test tool." }
func (t *fakeTool) InputSchema() json.RawMessage {
	if t.schema == "" {
		return json.RawMessage(`{"type":"object"}`)
	}
	return json.RawMessage(t.schema)
}
func (t *fakeTool) SideEffect() SideEffect {
	if t.side == "" {
		return SideEffectNone
	}
	return t.side
}
func (t *fakeTool) Execute(context.Context, *Call) (*Result, error) { return TextResult(""), nil }
