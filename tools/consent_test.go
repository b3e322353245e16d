package tools

import "testing"

func TestConsented(t *testing.T) {
	tests := []struct {
		decision string
		want     bool
	}{
		{DecisionAllow, true},
		{DecisionAllowAlways, true},
		{DecisionDeny, false},
		{"", false},
		{"Allow", false},
		{"yes", false},
		{"allowalways", false},
	}
	for _, tt := range tests {
		if got := (PermissionResponse{Decision: tt.decision}).Consented(); got != tt.want {
			t.Errorf("Consented(%q) = %v, want %v", tt.decision, got, tt.want)
		}
	}
}
