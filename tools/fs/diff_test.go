package fs

import (
	"context"
	"testing"
)

func TestDiff(t *testing.T) {
	tests := []struct {
		name  string
		input map[string]any
		exact string
	}{
		{
			name:  "default names",
			input: map[string]any{"old_text": "a\nb\n", "new_text": "a\nc\n"},
			exact: "--- old\n+++ new\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n",
		},
		{
			name:  "given names",
			input: map[string]any{"old_text": "x", "new_text": "y", "old_name": "v1.txt", "new_name": "v2.txt"},
			exact: "--- v1.txt\n+++ v2.txt\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n",
		},
		{
			name:  "identical",
			input: map[string]any{"old_text": "same\n", "new_text": "same\n"},
			exact: "The texts are identical.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, context.Background(), NewDiff(), nil, tt.input)
			wantResult(t, res, false)
			if res.Text() != tt.exact {
				t.Errorf("text =\n%q\nwant\n%q", res.Text(), tt.exact)
			}
		})
	}
}
