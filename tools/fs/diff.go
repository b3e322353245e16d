package fs

import (
	"context"
	_ "embed"
	"encoding/json"

	"github.com/toolhost/toolhost/internal/udiff"
	"github.com/toolhost/toolhost/tools"
)

//go:embed diff.md
var diffDescription string

type diffParams struct {
	OldText string `json:"old_text" jsonschema:"The original text."`
	NewText string `json:"new_text" jsonschema:"The changed text."`
	OldName string `json:"old_name,omitempty" jsonschema:"Label of the original side in the header (default \"old\")."`
	NewName string `json:"new_name,omitempty" jsonschema:"Label of the changed side in the header (default \"new\")."`
}

var diffSchema = tools.SchemaOf[diffParams](nil)

// Diff renders the unified diff of two texts.
type Diff struct{}

// NewDiff returns the Diff tool.
func NewDiff() *Diff { return &Diff{} }

func (*Diff) Name() string                 { return "Diff" }
func (*Diff) Description() string          { return diffDescription }
func (*Diff) InputSchema() json.RawMessage { return diffSchema.JSON() }
func (*Diff) SideEffect() tools.SideEffect { return tools.SideEffectNone }

// Docs implements tools.Documented.
func (*Diff) Docs() tools.Docs {
	return tools.Docs{
		Short: "Unified diff of two texts.",
		Long: "Lines are compared with go-diff and grouped into hunks with three lines of context; a last " +
			"line without a newline is marked as diff(1) marks it, so the output applies with patch(1).",
		Examples: []tools.Example{
			{Title: "Compare two versions of a function", Input: json.RawMessage(`{"old_text":"a\nb\n","new_text":"a\nc\n","old_name":"before.go","new_name":"after.go"}`)},
		},
	}
}

// Execute renders the diff.
func (*Diff) Execute(_ context.Context, call *tools.Call) (*tools.Result, error) {
	var p diffParams
	if err := json.Unmarshal(call.Input, &p); err != nil {
		return tools.ErrorResult("the input is not a valid Diff input (%v); send {\"old_text\", \"new_text\"}.", err), nil
	}
	if p.OldName == "" {
		p.OldName = "old"
	}
	if p.NewName == "" {
		p.NewName = "new"
	}
	d := udiff.Unified(p.OldName, p.NewName, p.OldText, p.NewText)
	if d == "" {
		return tools.TextResult("The texts are identical."), nil
	}
	res := tools.TextResult(d)
	res.Structured = map[string]any{"hunks": udiff.Hunks(p.OldText, p.NewText)}
	return res, nil
}
