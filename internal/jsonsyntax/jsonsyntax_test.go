package jsonsyntax

import (
	"strings"
	"testing"
)

func TestDetail(t *testing.T) {
	tests := []struct{ text, want string }{
		{`{"a":`, "unexpected end of JSON input"},
		{`{"a" 1}`, "(at byte 6)"},
		{`hello`, "invalid character 'h'"},
		{`{"a":1}`, "unexpected content"},
	}
	for _, tt := range tests {
		if got := Detail([]byte(tt.text)); !strings.Contains(got, tt.want) {
			t.Errorf("Detail(%q) = %q, want it to contain %q", tt.text, got, tt.want)
		}
	}
}
