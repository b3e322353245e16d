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
			defer s.Close()
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
