package visible

import (
	"encoding/json"
	"os"
	"testing"
)

// escapeTable is testdata/visible.json: the escaping every client of
// toolhost shows prompts with, one table for the Go, TypeScript and Lua
// implementations.
type escapeTable struct {
	Cases []struct {
		Name, In, Line, Text string
	}
}

func TestSharedEscapeTable(t *testing.T) {
	raw, err := os.ReadFile("../../testdata/visible.json")
	if err != nil {
		t.Fatal(err)
	}
	var table escapeTable
	if err := json.Unmarshal(raw, &table); err != nil || len(table.Cases) == 0 {
		t.Fatalf("testdata/visible.json: %v (%d cases)", err, len(table.Cases))
	}
	for _, tt := range table.Cases {
		t.Run(tt.Name, func(t *testing.T) {
			if got := Line(tt.In); got != tt.Line {
				t.Errorf("Line(%q) = %q, want %q", tt.In, got, tt.Line)
			}
			if got := Text(tt.In); got != tt.Text {
				t.Errorf("Text(%q) = %q, want %q", tt.In, got, tt.Text)
			}
		})
	}
}
