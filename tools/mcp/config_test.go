package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/settings"
)

func TestExpandEnv(t *testing.T) {
	env := map[string]string{"HOME": "/home/me", "EMPTY": ""}
	getenv := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct{ in, want string }{
		{"${HOME}/bin", "/home/me/bin"},
		{"${MISSING}", ""},
		{"${MISSING:-fallback}", "fallback"},
		{"${EMPTY:-used when empty}", "used when empty"},
		{"${HOME:-unused}", "/home/me"},
		{"$HOME stays", "$HOME stays"},
		{"a ${HOME} b ${MISSING:-c}", "a /home/me b c"},
		{"${not a var}", "${not a var}"},
	}
	for _, tc := range tests {
		if got := ExpandEnv(tc.in, getenv); got != tc.want {
			t.Errorf("ExpandEnv(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestLoadProjectConfig(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		wantErr  string
		wantURL  string
		wantArgs []string
	}{
		{name: "no file"},
		{name: "stdio and http", file: `{"mcpServers": {"s": {"command": "srv", "args": ["--x"]}, "h": {"type": "http", "url": "http://127.0.0.1:1/mcp"}}}`,
			wantURL: "http://127.0.0.1:1/mcp", wantArgs: []string{"--x"}},
		{name: "malformed", file: `{"mcpServers": [`, wantErr: ".mcp.json is not valid"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if tc.file != "" {
				if err := os.WriteFile(filepath.Join(root, ".mcp.json"), []byte(tc.file), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := LoadProjectConfig(root)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.file == "" {
				if len(got) != 0 {
					t.Fatalf("got %v from no file", got)
				}
				return
			}
			if got["h"].URL != tc.wantURL || strings.Join(got["s"].Args, " ") != strings.Join(tc.wantArgs, " ") {
				t.Fatalf("got %+v", got)
			}
		})
	}
}

func TestCollectConfigsPrefersSettings(t *testing.T) {
	s := settings.Defaults()
	s.MCPServers = map[string]settings.MCPServer{"both": {Command: "mine"}}
	project := map[string]settings.MCPServer{"both": {Command: "theirs"}, "proj": {Command: "p"}}
	got := collectConfigs(s, project, func(string) (string, bool) { return "", false })
	if len(got) != 2 || got[0].Name != "both" || got[0].Command != "mine" || got[0].Source != SourceSettings ||
		got[1].Name != "proj" || got[1].Source != SourceProject {
		t.Fatalf("got %+v", got)
	}
}

// A .mcp.json that is a link to a file outside the workspace is refused,
// not read (the project's configuration is read through the workspace's
// jail).
func TestLoadProjectConfigRefusesLinkOutside(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside.json")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outside, []byte(`{"mcpServers": {"s": {"command": "srv"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, ".mcp.json")); err != nil {
		t.Fatal(err)
	}
	got, err := LoadProjectConfig(root)
	if err == nil || !strings.Contains(err.Error(), "leads outside") || len(got) != 0 {
		t.Fatalf("got %v, %v; want a refusal", got, err)
	}
}

// .mcp.json is read as settings files are: a BOM is dropped, and what the
// decoder would drop without a word (a server or a key written twice, of
// which only the last counts; bytes that are not UTF-8) is reported as the
// settings report it.
func TestReadProjectConfigProblems(t *testing.T) {
	tests := []struct {
		name      string
		file      string
		wantKeys  []string // the problems' keys, in order
		wantWord  string   // in every problem's message
		wantCmd   string   // server a's command, as it is run
		wantNames int
	}{
		{name: "clean, with a BOM", file: "\xef\xbb\xbf" + `{"mcpServers": {"a": {"command": "one"}}}`, wantCmd: "one", wantNames: 1},
		{name: "a server named twice", file: `{"mcpServers": {"a": {"command": "one"}, "b": {"command": "b"}, "a": {"command": "two"}}}`,
			wantKeys: []string{"mcpServers.a"}, wantWord: "only the last one applies", wantCmd: "two", wantNames: 2},
		{name: "a key repeated inside a server", file: `{"mcpServers": {"a": {"command": "one", "args": [], "command": "two"}}}`,
			wantKeys: []string{"mcpServers.a.command"}, wantWord: "only the last one applies", wantCmd: "two", wantNames: 1},
		{name: "mcpServers twice", file: `{"mcpServers": {"a": {"command": "one"}}, "mcpServers": {"a": {"command": "two"}}}`,
			wantKeys: []string{"mcpServers"}, wantWord: "Merge them", wantCmd: "two", wantNames: 1},
		{name: "bytes that are not UTF-8", file: `{"mcpServers": {"a": {"command": "caf` + "\xe9" + `"}}}`,
			wantKeys: []string{""}, wantWord: "not valid UTF-8", wantCmd: "caf\ufffd", wantNames: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			file := filepath.Join(root, ".mcp.json")
			if err := os.WriteFile(file, []byte(tc.file), 0o644); err != nil {
				t.Fatal(err)
			}
			servers, problems, err := ReadProjectConfig(root)
			if err != nil {
				t.Fatal(err)
			}
			if len(servers) != tc.wantNames || servers["a"].Command != tc.wantCmd {
				t.Errorf("servers = %+v, want %d with a's command %q", servers, tc.wantNames, tc.wantCmd)
			}
			var keys []string
			for _, p := range problems {
				keys = append(keys, p.Key)
				if p.File != file || !strings.Contains(p.Message, tc.wantWord) {
					t.Errorf("problem %+v, want one of %s saying %q", p, file, tc.wantWord)
				}
			}
			if strings.Join(keys, "|") != strings.Join(tc.wantKeys, "|") || len(keys) != len(tc.wantKeys) {
				t.Errorf("problem keys = %q, want %q", keys, tc.wantKeys)
			}
		})
	}
}
