package session

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/engine"
)

func newTestSession(t *testing.T, projectSettings string) (*Session, string) {
	t.Helper()
	dir := t.TempDir()
	root := filepath.Join(dir, "proj")
	if err := os.MkdirAll(filepath.Join(root, ".toolhost"), 0o755); err != nil {
		t.Fatal(err)
	}
	if projectSettings != "" {
		if err := os.WriteFile(filepath.Join(root, ".toolhost", "settings.json"), []byte(projectSettings), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The user trusts the folder: these tests are about what its settings
	// do (trust_test.go covers untrusted folders).
	if _, err := (settings.TrustFile{Path: filepath.Join(dir, settings.TrustFileName)}).Trust(root); err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Roots: []string{root}, UserConfigPath: filepath.Join(dir, "none.json"), NoMCP: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, root
}

func enabled(s *Session, name string) bool {
	e, ok := s.Registry.Lookup(name)
	return ok && e.Enabled
}

func TestToolsEnabledAndDisabledFollowTheSettings(t *testing.T) {
	s, _ := newTestSession(t, `{"tools": {"disabled": ["bash", "Web*"]}}`)
	for name, want := range map[string]bool{"Bash": false, "WebFetch": false, "WebSearch": false, "Read": true, "Edit": true} {
		if got := enabled(s, name); got != want {
			t.Errorf("%s enabled = %v, want %v", name, got, want)
		}
	}
	// The client's settings replace the policy: only Read and Grep.
	if err := s.UpdateSettings(json.RawMessage(`{"tools": {"enabled": ["Read", "Grep"]}}`)); err != nil {
		t.Fatal(err)
	}
	got := s.Registry.EnabledNames()
	if !slices.Equal(got, []string{"Read", "Grep"}) {
		t.Errorf("enabled after didChangeConfiguration = %v, want [Read Grep]", got)
	}
	resp, err := s.Pipeline.Call(context.Background(), tools.NoHost{}, engine.Request{Name: "Glob", Input: json.RawMessage(`{"pattern":"*"}`)})
	if err != nil || !resp.IsError {
		t.Errorf("a disabled tool ran: %+v, %v", resp, err)
	}
}

func TestAdditionalDirectoriesCountAsInside(t *testing.T) {
	extra := t.TempDir()
	s, _ := newTestSession(t, `{"permissions": {"additionalDirectories": [`+jsonString(extra)+`]}}`)
	if !s.Workspace.Inside(extra) {
		t.Errorf("%s is not inside the workspace", extra)
	}
}

func TestModeComesFromSettingsAndStatusReportsState(t *testing.T) {
	s, _ := newTestSession(t, `{"permissions": {"defaultMode": "acceptEdits"}, "bash": {"defaultTimeoutMs": "x"}}`)
	if m := s.Permissions.Mode(); m != tools.ModeAcceptEdits {
		t.Errorf("mode = %s, want acceptEdits from the settings", m)
	}
	edit, _ := s.Registry.Lookup("Edit")
	bash, _ := s.Registry.Lookup("Bash")
	if !s.AutoAllowed(nil, edit.Tool) || s.AutoAllowed(nil, bash.Tool) {
		t.Error("in acceptEdits, Edit is auto-allowed and Bash is not")
	}
	raw, _ := json.Marshal(s.Status())
	var decoded struct {
		SettingsProblems []struct{ Key string } `json:"settingsProblems"`
		BackgroundTasks  []any                  `json:"backgroundTasks"`
		Todos            []any                  `json:"todos"`
	}
	if err := json.Unmarshal(raw, &decoded); err != nil {
		t.Fatal(err)
	}
	if len(decoded.SettingsProblems) != 1 || decoded.SettingsProblems[0].Key != "bash.defaultTimeoutMs" {
		t.Errorf("settingsProblems = %+v, want the bad bash.defaultTimeoutMs", decoded.SettingsProblems)
	}
	if decoded.BackgroundTasks == nil || decoded.Todos == nil {
		t.Errorf("status lists are null: %s", raw)
	}
}

func TestCloseStopsBackgroundTasks(t *testing.T) {
	s, _ := newTestSession(t, "")
	resp, err := s.Pipeline.Call(context.Background(), tools.NoHost{}, engine.Request{Name: "Bash", Input: json.RawMessage(`{"command":"sleep 300","run_in_background":true}`)})
	if err != nil {
		t.Fatal(err)
	}
	// NoHost cannot ask, and Bash needs permission in the default mode.
	if !resp.IsError {
		t.Fatalf("Bash ran without permission: %+v", resp.Result)
	}
	if err := s.Permissions.SetMode(tools.ModeBypassPermissions); err != nil {
		t.Fatal(err)
	}
	resp, err = s.Pipeline.Call(context.Background(), tools.NoHost{}, engine.Request{Name: "Bash", Input: json.RawMessage(`{"command":"sleep 300","run_in_background":true}`)})
	if err != nil || resp.IsError {
		t.Fatalf("background Bash: %+v, %v", resp, err)
	}
	if ids := s.Tasks.IDs(true); len(ids) != 1 {
		t.Fatalf("running tasks = %v, want one", ids)
	}
	s.Close()
	if ids := s.Tasks.IDs(true); len(ids) != 0 {
		t.Errorf("tasks still running after Close: %v", ids)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// BenchmarkPipelineRead is a Read of 50 lines of a 5,000-line file through
// the whole pipeline of a real session (validation, permissions, hooks
// settings), as toolhost serve and toolhost mcp run it.
func BenchmarkPipelineRead(b *testing.B) {
	dir := b.TempDir()
	var text []byte
	for i := range 5000 {
		text = append(text, []byte("line "+strconv.Itoa(i)+" of a file that is long enough to be realistic, with some words\n")...)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), text, 0o644); err != nil {
		b.Fatal(err)
	}
	benchmarkCall(b, dir, "Read", `{"file_path":"big.txt","offset":2000,"limit":50}`)
}

// BenchmarkPipelineBash is a Bash `echo hi` through the whole pipeline of a
// real session, allowed by a settings rule; compare it with the time bash
// itself takes to start (`go test ./tools/shell -bench SpawnFloor`).
func BenchmarkPipelineBash(b *testing.B) {
	dir := b.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".toolhost"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".toolhost", "settings.json"), []byte(`{"permissions":{"allow":["Bash(echo hi)"]}}`), 0o644); err != nil {
		b.Fatal(err)
	}
	if _, err := (settings.TrustFile{Path: filepath.Join(dir, settings.TrustFileName)}).Trust(dir); err != nil {
		b.Fatal(err)
	}
	benchmarkCall(b, dir, "Bash", `{"command":"echo hi"}`)
}

// benchmarkCall times calls of one tool through the pipeline of a real
// session over dir (no MCP servers, no user settings).
func benchmarkCall(b *testing.B, dir, tool, input string) {
	b.Helper()
	s, err := New(Options{Roots: []string{dir}, UserConfigPath: filepath.Join(dir, "none.json"), NoMCP: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	req := engine.Request{Name: tool, Input: json.RawMessage(input)}
	ctx := context.Background()
	for b.Loop() {
		resp, err := s.Pipeline.Call(ctx, tools.NoHost{}, req)
		if err != nil || resp.IsError {
			b.Fatal(err, resp)
		}
	}
}

func TestOnlyMCPSettingsReloadTheServers(t *testing.T) {
	base := settings.Defaults()
	rule := *base
	rule.Permissions.Allow = []string{"Bash(make:*)"}
	server := *base
	server.MCPServers = map[string]settings.MCPServer{"x": {Command: "x-server"}}
	approved := *base
	approved.EnabledMCPJSONServers = []string{"proj"}
	if mcpSettingsOf(base) != mcpSettingsOf(&rule) {
		t.Error("a new allow rule counts as an MCP change")
	}
	for name, st := range map[string]*settings.Settings{"a new server": &server, "an approval": &approved} {
		if mcpSettingsOf(base) == mcpSettingsOf(st) {
			t.Errorf("%s does not count as an MCP change", name)
		}
	}
}
