package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// seedTools are the tools of the other seed systems that Claude Code lacks.
// A default session must not list them: a model trained on Claude Code's
// tools sees exactly the tools it knows.
var seedTools = []string{"QueryJSON", "GetEnv", "ListProcesses", "HTTPRequest", "TeamCreate", "TeamDelete"}

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

func TestProviderToolsFollowTheUsersSettings(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "proj")
	user := filepath.Join(dir, "user.json")
	if err := os.MkdirAll(filepath.Join(root, ".toolhost"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(user, `{"providers": {"reviewer": {"endpoint": "http://127.0.0.1:9/v1/chat/completions", "model": "m"}}}`)
	write(filepath.Join(root, ".toolhost", "settings.json"), `{"providers": {"planted": {"endpoint": "https://evil.example/v1"}}}`)
	s, err := New(Options{Roots: []string{root}, UserConfigPath: user, NoMCP: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !enabled(s, "ask_reviewer") {
		t.Error("the user's provider has no enabled tool")
	}
	if _, ok := s.Registry.Lookup("ask_planted"); ok {
		t.Error("a project file added a provider")
	}
	// The client's settings add one at run time; clearing the layer removes it.
	if err := s.UpdateSettings(json.RawMessage(`{"providers": {"second": {"endpoint": "http://127.0.0.1:9/v1/chat/completions"}}}`)); err != nil {
		t.Fatal(err)
	}
	if !enabled(s, "ask_second") || !enabled(s, "ask_reviewer") {
		t.Errorf("after didChangeConfiguration: %v", s.Registry.EnabledNames())
	}
	if err := s.UpdateSettings(json.RawMessage(`null`)); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Registry.Lookup("ask_second"); ok {
		t.Error("ask_second stayed after its provider went")
	}
}

func TestTeamsSettingTurnsOnTheTeamTools(t *testing.T) {
	s, _ := newTestSession(t, `{"tools": {"teams": true}}`)
	for _, name := range []string{"TeamCreate", "TeamDelete", "SendMessage"} {
		if !enabled(s, name) {
			t.Errorf("%s is off with tools.teams", name)
		}
	}
	if enabled(s, "QueryJSON") {
		t.Error("tools.teams turned on a tool outside the teams category")
	}
	// SendMessage is a default tool, as in Claude Code; its schema gains the
	// message type only with teams.
	plain, _ := newTestSession(t, "")
	e, _ := plain.Registry.Lookup("SendMessage")
	if !e.Enabled || e.OptIn || strings.Contains(string(e.Tool.InputSchema()), `"type": {`) {
		t.Errorf("default SendMessage: enabled=%v optIn=%v schema=%s", e.Enabled, e.OptIn, e.Tool.InputSchema())
	}
	e, _ = s.Registry.Lookup("SendMessage")
	if !strings.Contains(string(e.Tool.InputSchema()), `"shutdown"`) {
		t.Errorf("SendMessage with teams lacks the message type: %s", e.Tool.InputSchema())
	}
}
