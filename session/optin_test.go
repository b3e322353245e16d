package session

import (
	"encoding/json"
	"slices"
	"testing"
)

// seedTools are the tools of the other seed systems that Claude Code lacks.
// A default session must not list them: a model trained on Claude Code's
// tools sees exactly the tools it knows.
var seedTools = []string{"QueryJSON", "GetEnv", "ListProcesses", "HTTPRequest"}

func TestSeedToolsAreOffByDefault(t *testing.T) {
	s, _ := newTestSession(t, "")
	var want []string
	for _, e := range s.Registry.Entries(true) {
		if !e.OptIn {
			want = append(want, e.Tool.Name())
		}
	}
	if got := s.Registry.EnabledNames(); !slices.Equal(got, want) {
		t.Errorf("a default session lists %v, want every tool that is not opt-in: %v", got, want)
	}
	for _, name := range seedTools {
		e, ok := s.Registry.Lookup(name)
		if !ok {
			t.Errorf("%s is not registered", name)
			continue
		}
		if !e.OptIn || e.Enabled {
			t.Errorf("%s: optIn=%v enabled=%v, want an opt-in tool that is off", name, e.OptIn, e.Enabled)
		}
	}
}

func TestOptInToolsFollowTheSettings(t *testing.T) {
	s, _ := newTestSession(t, "")
	before := len(s.Registry.EnabledNames())
	if err := s.UpdateSettings(json.RawMessage(`{"tools": {"optIn": ["queryjson"]}}`)); err != nil {
		t.Fatal(err)
	}
	if got := len(s.Registry.EnabledNames()); got != before+1 {
		t.Errorf("%d tools enabled after opting in to one, want %d", got, before+1)
	}
	if !enabled(s, "QueryJSON") {
		t.Fatal("tools.optIn did not turn QueryJSON on")
	}
	// tools.disabled still wins.
	if err := s.UpdateSettings(json.RawMessage(`{"tools": {"optIn": ["QueryJSON"], "disabled": ["QueryJSON"]}}`)); err != nil {
		t.Fatal(err)
	}
	if enabled(s, "QueryJSON") {
		t.Error("tools.disabled did not turn an opted-in tool off")
	}
	// Naming a tool exactly in tools.enabled opts in too; a prefix does not.
	if err := s.UpdateSettings(json.RawMessage(`{"tools": {"enabled": ["Read", "Query*"]}}`)); err != nil {
		t.Fatal(err)
	}
	if enabled(s, "QueryJSON") {
		t.Error("a prefix in tools.enabled turned an opt-in tool on")
	}
	if err := s.UpdateSettings(json.RawMessage(`{"tools": {"enabled": ["Read", "QueryJSON"]}}`)); err != nil {
		t.Fatal(err)
	}
	if got := s.Registry.EnabledNames(); !slices.Equal(got, []string{"Read", "QueryJSON"}) {
		t.Errorf("enabled = %v, want [Read QueryJSON]", got)
	}
}
