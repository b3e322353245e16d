package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/settings"
)

func TestListMcpResources(t *testing.T) {
	_, reg, log := startManager(t, t.TempDir(), map[string]settings.MCPServer{"everything": everythingServer(t)}, nil)
	log.waitFor(t, 0, "everything connected", connected("everything"))

	tests := []struct {
		name      string
		input     map[string]any
		wantError string
	}{
		{name: "all servers", input: map[string]any{}},
		{name: "one server", input: map[string]any{"server": "everything"}},
		{name: "unknown server", input: map[string]any{"server": "nope"}, wantError: "the configured servers are: everything"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, _ := call(t, reg, "ListMcpResources", tc.input)
			if tc.wantError != "" {
				if !res.IsError || !strings.Contains(res.Text(), tc.wantError) {
					t.Fatalf("want error containing %q, got %+v", tc.wantError, res)
				}
				return
			}
			if res.IsError {
				t.Fatalf("unexpected error: %s", res.Text())
			}
			var entries []ResourceEntry
			if err := json.Unmarshal([]byte(res.Text()), &entries); err != nil {
				t.Fatalf("output is not the JSON list: %v\n%s", err, res.Text())
			}
			if len(entries) == 0 {
				t.Fatal("no resources listed")
			}
			for _, e := range entries {
				if e.Server != "everything" || e.URI == "" || e.Name == "" {
					t.Fatalf("incomplete entry %+v", e)
				}
			}
		})
	}
}
