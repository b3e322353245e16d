package lspserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/toolhost/toolhost/ideserver"
)

// nextMatching returns the server's next message for which match holds,
// skipping the others (logs, progress).
func (c *testClient) nextMatching(what string, match func(map[string]any) bool) map[string]any {
	c.t.Helper()
	for {
		if m := c.nextFor(what); match(m) {
			return m
		}
	}
}

// wsCall sends a JSON-RPC request on ws and returns the answer to it.
func wsCall(ctx context.Context, t *testing.T, ws *websocket.Conn, id int, method string, params any) map[string]any {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err := ws.Write(ctx, websocket.MessageText, body); err != nil {
		t.Fatal(err)
	}
	return wsAwait(ctx, t, ws, id)
}

// wsAwait returns the answer to id, skipping other messages.
func wsAwait(ctx context.Context, t *testing.T, ws *websocket.Conn, id int) map[string]any {
	t.Helper()
	for {
		_, data, err := ws.Read(ctx)
		if err != nil {
			t.Fatalf("reading the answer to %d: %v", id, err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		if m["id"] == float64(id) {
			return m
		}
	}
}

// TestClaudeCodeCLIThroughTheEditor drives the session as the Claude Code
// CLI does: it finds the lock file, connects with its token, and an
// openDiff reaches the editor as toolhost/ideTool and comes back as
// FILE_SAVED with the editor's text; the editor's selection reaches the
// CLI; the editor going away removes the lock file.
func TestClaudeCodeCLIThroughTheEditor(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	editor := exec.Command("sleep", "60")
	if err := editor.Start(); err != nil {
		t.Skip("no sleep to stand for the editor:", err)
	}
	t.Cleanup(func() { _ = editor.Process.Kill(); _ = editor.Wait() })
	c := startServer(t, Options{})
	root := t.TempDir()
	c.request(0, "initialize", map[string]any{"processId": editor.Process.Pid, "rootPath": root, "clientInfo": map[string]any{"name": "Neovim"},
		"capabilities": map[string]any{"experimental": map[string]any{"toolhost": map[string]any{"ideTools": true}}}})
	if m := c.nextMatching("the reply to initialize", func(m map[string]any) bool { return m["id"] == float64(0) }); m["error"] != nil {
		t.Fatal(m["error"])
	}
	c.notify("initialized", map[string]any{})
	c.request(1, "toolhost/status", map[string]any{})
	st := c.nextMatching("the status", func(m map[string]any) bool { return m["id"] == float64(1) })
	ide, _ := st["result"].(map[string]any)["claudeCodeIde"].(map[string]any)
	if ide == nil {
		t.Fatalf("no claudeCodeIde in the status: %v", st)
	}
	port := int(ide["port"].(float64))
	lockPath := ide["lockFile"].(string)
	if want := cfg + "/ide/" + strconv.Itoa(port) + ".lock"; lockPath != want {
		t.Errorf("lock file %s, want %s", lockPath, want)
	}
	var lock ideserver.Lock
	body, err := os.ReadFile(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(body, &lock); err != nil {
		t.Fatal(err)
	}
	if lock.PID != editor.Process.Pid || lock.IDEName != "Neovim" || lock.Transport != "ws" || len(lock.WorkspaceFolders) != 1 || lock.AuthToken == "" {
		t.Errorf("lock %+v: want the editor's pid %d, Neovim, ws, the root and a token", lock, editor.Process.Pid)
	}
	if strings.Contains(strings.Join(strings.Fields(string(mustJSON(t, st))), ""), lock.AuthToken) {
		t.Error("the status shows the token")
	}

	ctx := t.Context()
	url := "ws://127.0.0.1:" + strconv.Itoa(port)
	if _, resp, err := websocket.Dial(ctx, url, nil); err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a connection without the token: %v %v", resp, err)
	}
	ws, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: []string{"mcp"},
		HTTPHeader: http.Header{ideserver.TokenHeader: {lock.AuthToken}}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	wsCall(ctx, t, ws, 1, "initialize", map[string]any{"protocolVersion": "2025-03-26", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "claude-code", "version": "2"}})
	note, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	if err := ws.Write(ctx, websocket.MessageText, note); err != nil {
		t.Fatal(err)
	}

	// openDiff blocks until the editor answers; the editor's text (the
	// user changed the proposal) is what the CLI gets.
	body, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{"name": "openDiff",
		"arguments": map[string]any{"old_file_path": root + "/a.txt", "new_file_path": root + "/a.txt", "new_file_contents": "proposed\n", "tab_name": "✻ [Claude Code] a.txt"}}})
	if err := ws.Write(ctx, websocket.MessageText, body); err != nil {
		t.Fatal(err)
	}
	req := c.nextMatching("toolhost/ideTool", func(m map[string]any) bool { return m["method"] == "toolhost/ideTool" })
	params := req["params"].(map[string]any)
	if params["name"] != "openDiff" || params["arguments"].(map[string]any)["new_file_contents"] != "proposed\n" {
		t.Errorf("the editor was asked %v", params)
	}
	c.send(map[string]any{"jsonrpc": "2.0", "id": req["id"], "result": map[string]any{"saved": true, "text": "proposed, and the user's line\n"}})
	res := wsAwait(ctx, t, ws, 2)
	content := res["result"].(map[string]any)["content"].([]any)
	if len(content) != 2 || content[0].(map[string]any)["text"] != "FILE_SAVED" || content[1].(map[string]any)["text"] != "proposed, and the user's line\n" {
		t.Errorf("openDiff answered %v", res)
	}

	// The editor's selection reaches the CLI as it was sent.
	sel := map[string]any{"text": "line", "filePath": root + "/a.txt", "selection": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 4}, "isEmpty": false}}
	c.notify("toolhost/ideNotify", map[string]any{"method": "selection_changed", "params": sel})
	var got map[string]any
	for got["method"] != "selection_changed" {
		_, data, err := ws.Read(ctx)
		if err != nil {
			t.Fatalf("no selection_changed reached the CLI: %v", err)
		}
		got = nil
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatal(err)
		}
	}
	if got["params"].(map[string]any)["text"] != "line" {
		t.Errorf("the CLI got %v", got)
	}

	// The editor goes away (its pipe closes): the lock file goes too.
	_ = c.w.Close()
	if err := c.awaitServed(); err != nil && !errors.Is(err, ErrExitWithoutShutdown) {
		t.Fatal(err)
	}
	if _, err := os.Stat(lockPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock file outlived the session: %v", err)
	}
}

// TestClaudeCodeIDEProcessID: the lock file names ideProcessId when the
// client gives one (VS Code), else processId.
func TestClaudeCodeIDEProcessID(t *testing.T) {
	for _, tc := range []struct {
		name string
		caps map[string]any
		want int
	}{
		{"processId", map[string]any{"ideTools": true}, 4242},
		{"ideProcessId", map[string]any{"ideTools": true, "ideProcessId": 4343}, 4343},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
			c := startServer(t, Options{})
			c.request(0, "initialize", map[string]any{"processId": 4242, "rootPath": t.TempDir(),
				"capabilities": map[string]any{"experimental": map[string]any{"toolhost": tc.caps}}})
			c.nextMatching("the reply to initialize", func(m map[string]any) bool { return m["id"] == float64(0) })
			c.request(1, "toolhost/status", map[string]any{})
			st := c.nextMatching("the status", func(m map[string]any) bool { return m["id"] == float64(1) })
			ide, _ := st["result"].(map[string]any)["claudeCodeIde"].(map[string]any)
			if ide == nil {
				t.Fatalf("no listener: %v", st)
			}
			var lock ideserver.Lock
			body, err := os.ReadFile(ide["lockFile"].(string))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(body, &lock); err != nil || lock.PID != tc.want {
				t.Errorf("lock pid %d (%v), want %d", lock.PID, err, tc.want)
			}
		})
	}
}

// TestClaudeCodeIDEOff: no listener for a client that cannot answer the
// tools, nor when the setting is false.
func TestClaudeCodeIDEOff(t *testing.T) {
	for _, tc := range []struct {
		name string
		init map[string]any
	}{
		{"client without ideTools", map[string]any{"capabilities": map[string]any{}}},
		{"server.claudeCodeIde false", map[string]any{"initializationOptions": map[string]any{"server": map[string]any{"claudeCodeIde": false}},
			"capabilities": map[string]any{"experimental": map[string]any{"toolhost": map[string]any{"ideTools": true}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := t.TempDir()
			t.Setenv("CLAUDE_CONFIG_DIR", cfg)
			c := startServer(t, Options{})
			tc.init["rootPath"] = t.TempDir()
			c.request(0, "initialize", tc.init)
			c.nextMatching("the reply to initialize", func(m map[string]any) bool { return m["id"] == float64(0) })
			c.request(1, "toolhost/status", map[string]any{})
			st := c.nextMatching("the status", func(m map[string]any) bool { return m["id"] == float64(1) })
			if ide := st["result"].(map[string]any)["claudeCodeIde"]; ide != nil {
				t.Errorf("the listener runs: %v", ide)
			}
			if entries, _ := os.ReadDir(cfg + "/ide"); len(entries) != 0 {
				t.Errorf("a lock file was written: %v", entries)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
