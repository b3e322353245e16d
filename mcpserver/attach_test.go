package mcpserver

import "testing"

// TestUpstreamToken: every token a client may send is passed on in a form
// the SDK sends (int or string), or not at all.
func TestUpstreamToken(t *testing.T) {
	tests := []struct {
		in   any
		want any
		ok   bool
	}{
		{float64(3), 3, true},
		{float64(2.5), "2.5", true},
		{"tok-1", "tok-1", true},
		{7, 7, true},
		{true, nil, false},
		{nil, nil, false},
	}
	for _, tt := range tests {
		got, ok := upstreamToken(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("upstreamToken(%#v) = %#v, %v; want %#v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
