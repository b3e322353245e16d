package state

import (
	"testing"

	"github.com/toolhost/toolhost/tools"
)

// TestExamplesMatchSchemas checks that every documented example is valid
// input, so the reference never shows a call the pipeline would refuse.
func TestTodoAskExamplesMatchSchemas(t *testing.T) {
	v := tools.NewValidator()
	for _, tool := range []tools.Tool{NewTodoWrite(NewTodoStore()), NewAskUserQuestion()} {
		docs := tool.(tools.Documented).Docs()
		if docs.Short == "" || len(docs.Examples) == 0 {
			t.Errorf("%s has no summary or no examples", tool.Name())
		}
		for _, ex := range docs.Examples {
			res, err := v.Validate(tool, ex.Input, nil)
			if err != nil {
				t.Fatalf("%s: %v", tool.Name(), err)
			}
			if res != nil {
				t.Errorf("%s example %q is invalid: %s", tool.Name(), ex.Title, res.Text())
			}
		}
	}
}
