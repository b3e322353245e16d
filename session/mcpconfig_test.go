package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/settings"
)

// TestStatusSaysWhyTheProjectMCPServersDidNotStart: a trusted folder whose
// .mcp.json cannot be read (not JSON, a wrong type, too big) starts none
// of its servers; toolhost/status names the file and the reason among the
// settings problems, instead of only the log.
func TestStatusSaysWhyTheProjectMCPServersDidNotStart(t *testing.T) {
	for name, content := range map[string]string{
		"not JSON":   `{"mcpServers": {"a": {"command": "true"}},`,
		"wrong type": `{"mcpServers": {"a": {"command": 5}}}`,
		"too big":    `{"mcpServers": {"a": {"command": "` + strings.Repeat("x", settings.MaxFileBytes) + `"}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			s, file := trustedWithMCPJSON(t, content)
			problems, _ := s.Status()["settingsProblems"].([]settings.Problem)
			for _, p := range problems {
				if p.File == file && strings.Contains(p.Message, "not started") {
					return
				}
			}
			t.Errorf("settingsProblems = %+v, want one for %s saying its servers are not started", problems, file)
		})
	}
}

// A trusted folder's .mcp.json that names a server twice starts the last
// one, and toolhost/status says so among the settings problems, as it does
// for a settings file with a key written twice.
func TestStatusReportsRepeatedMCPServers(t *testing.T) {
	s, file := trustedWithMCPJSON(t, `{"mcpServers": {"a": {"command": "true"}, "a": {"command": "false"}}}`)
	problems, _ := s.Status()["settingsProblems"].([]settings.Problem)
	for _, p := range problems {
		if p.File == file && p.Key == "mcpServers.a" && strings.Contains(p.Message, "only the last one applies") {
			return
		}
	}
	t.Errorf("settingsProblems = %+v, want one for %s key mcpServers.a", problems, file)
}

// trustedWithMCPJSON starts a session on a trusted folder whose .mcp.json
// holds content, its servers enabled; it returns the file's path.
func trustedWithMCPJSON(t *testing.T, content string) (*Session, string) {
	t.Helper()
	dir := t.TempDir()
	root := filepath.Join(dir, "proj")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, ".mcp.json")
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := (settings.TrustFile{Path: filepath.Join(dir, settings.TrustFileName)}).Trust(root); err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Roots: []string{root}, UserConfigPath: filepath.Join(dir, "none.json"),
		InitOptions: json.RawMessage(`{"enableAllProjectMcpServers": true}`)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, file
}
