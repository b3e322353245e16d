package lspserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testnpm"
	"github.com/toolhost/toolhost/session"
	"github.com/toolhost/toolhost/settings"
)

// TestEditorUsesAProjectMCPServer is the MCP path as an editor user lives
// it: a server in the project's .mcp.json is approved once in a dialog, its
// tools appear in toolhost/toolsChanged and listTools, a call of one runs
// on the real server, and the approval is saved.
func TestEditorUsesAProjectMCPServer(t *testing.T) {
	script := testnpm.EverythingScript(t)
	root := t.TempDir()
	mcpJSON, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": "node", "args": []string{script, "stdio"}},
	}})
	if err := os.WriteFile(filepath.Join(root, ".mcp.json"), mcpJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	// The user trusts the folder (trust_test.go covers untrusted ones): its
	// .mcp.json is read, and each server still asks once.
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	if _, err := (settings.TrustFile{Path: settings.DefaultTrustFilePath()}).Trust(root); err != nil {
		t.Fatal(err)
	}
	c := startServer(t, Options{OnSession: func(*session.Session) {}})
	c.initialize(root, map[string]any{"experimental": map[string]any{"toolhost": map[string]any{"requestPermission": true}}})

	var prompts []string
	// answerPrompts allows every permission request and returns the first
	// other message that satisfies done.
	answerPrompts := func(done func(m map[string]any) bool) map[string]any {
		t.Helper()
		for {
			m := c.nextNotLog()
			if m["method"] == "toolhost/requestPermission" {
				params := m["params"].(map[string]any)
				prompts = append(prompts, params["toolName"].(string))
				c.send(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": map[string]any{"decision": "allow"}})
				continue
			}
			if done(m) {
				return m
			}
		}
	}
	answerPrompts(func(m map[string]any) bool {
		if m["method"] != "toolhost/toolsChanged" {
			return false
		}
		names, _ := m["params"].(map[string]any)["tools"].([]any)
		return slices.Contains(names, any("mcp__everything__echo"))
	})
	if len(prompts) != 1 || prompts[0] != "mcp__everything" {
		t.Fatalf("prompts before the tools came = %v, want one for mcp__everything", prompts)
	}

	c.request(1, "toolhost/listTools", map[string]any{})
	list := answerPrompts(func(m map[string]any) bool { return m["id"] == float64(1) })
	raw, _ := json.Marshal(list["result"])
	if !strings.Contains(string(raw), `"mcp__everything__echo"`) {
		t.Fatalf("listTools lacks the server's echo tool: %.500s", raw)
	}

	c.request(2, "toolhost/callTool", map[string]any{"name": "mcp__everything__echo", "input": map[string]any{"message": "hello from the editor"}})
	res := answerPrompts(func(m map[string]any) bool { return m["id"] == float64(2) })
	if text := resultText(t, res); !strings.Contains(text, "hello from the editor") {
		t.Fatalf("echo result = %q", text)
	}

	local, err := os.ReadFile(filepath.Join(root, ".toolhost", "settings.local.json"))
	if err != nil || !strings.Contains(string(local), `"everything"`) {
		t.Errorf("the approval was not saved to enabledMcpjsonServers: %s, %v", local, err)
	}
}
