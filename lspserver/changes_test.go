package lspserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// roundTrip sends a request and returns its reply, skipping what the
// server sends meanwhile (logs, progress).
func (c *testClient) roundTrip(id int, method string, params any) map[string]any {
	c.t.Helper()
	c.request(id, method, params)
	for {
		m := c.nextFor("the reply to " + method)
		if got, ok := m["id"].(float64); ok && int(got) == id && m["method"] == nil {
			return m
		}
	}
}

// TestRewindAfterRestart: an agent's three-file turn, a server that ends
// without shutdown (a crash), a new server in the same workspace that
// lists the turn and rewinds it, keeping the file the user changed since.
func TestRewindAfterRestart(t *testing.T) {
	t.Setenv("TOOLHOST_STATE_DIR", t.TempDir())
	root := t.TempDir()
	for name, text := range map[string]string{"a.txt": "A1\n", "b.txt": "B1\n"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	first := startServer(t, Options{})
	first.initialize(root, nil)
	first.roundTrip(1, "toolhost/setPermissionMode", map[string]any{"mode": "acceptEdits"})
	first.roundTrip(2, "toolhost/callTools", map[string]any{"calls": []map[string]any{
		{"callId": "r1", "name": "Read", "input": map[string]any{"file_path": "a.txt"}},
		{"callId": "r2", "name": "Read", "input": map[string]any{"file_path": "b.txt"}},
	}})
	reply := first.roundTrip(3, "toolhost/callTools", map[string]any{"turnId": "turn-1", "agent": "Test Agent", "calls": []map[string]any{
		{"callId": "w1", "name": "Write", "input": map[string]any{"file_path": "a.txt", "content": "A2\n"}},
		{"callId": "w2", "name": "Write", "input": map[string]any{"file_path": "b.txt", "content": "B2\n"}},
		{"callId": "w3", "name": "Write", "input": map[string]any{"file_path": "c.txt", "content": "C\n"}},
	}})
	if raw, _ := json.Marshal(reply); strings.Contains(string(raw), `"isError":true`) {
		t.Fatalf("the turn's writes failed: %s", raw)
	}
	// A crash: the input ends without shutdown.
	_ = first.w.Close()
	if err := first.awaitServed(); err == nil {
		t.Fatal("Serve ended cleanly without shutdown")
	}
	// The user goes on editing b.txt.
	if err := os.WriteFile(filepath.Join(root, "b.txt"), []byte("B2 and mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	second := startServer(t, Options{})
	second.initialize(root, nil)
	listed := second.roundTrip(1, "toolhost/changes", map[string]any{})
	var changes struct {
		Result struct {
			Turns []struct {
				ID, Agent string
				Calls     []struct{ ID, Tool string }
				Files     []struct{ Path, State string }
			}
		}
	}
	raw, _ := json.Marshal(listed)
	if err := json.Unmarshal(raw, &changes); err != nil {
		t.Fatal(err)
	}
	turns := changes.Result.Turns
	if len(turns) != 1 || turns[0].ID != "turn-1" || turns[0].Agent != "Test Agent" || len(turns[0].Calls) != 3 || len(turns[0].Files) != 3 {
		t.Fatalf("toolhost/changes after a restart: %s; want turn-1 by Test Agent with 3 calls of 3 files", raw)
	}
	states := map[string]string{}
	for _, f := range turns[0].Files {
		states[filepath.Base(f.Path)] = f.State
	}
	if states["a.txt"] != "asLeft" || states["b.txt"] != "changedSince" || states["c.txt"] != "asLeft" {
		t.Errorf("file states %v: want a and c as the turn left them, b changed since", states)
	}

	rewound := second.roundTrip(2, "toolhost/rewind", map[string]any{})
	raw, _ = json.Marshal(rewound)
	if !strings.Contains(string(raw), "you changed b.txt after the turn") {
		t.Errorf("the rewind's answer does not say b.txt was kept: %s", raw)
	}
	for name, want := range map[string]string{"a.txt": "A1\n", "b.txt": "B2 and mine\n", "c.txt": "<none>"} {
		data, err := os.ReadFile(filepath.Join(root, name))
		got := string(data)
		if os.IsNotExist(err) {
			got = "<none>"
		}
		if got != want {
			t.Errorf("%s holds %q after the rewind, want %q", name, got, want)
		}
	}
	bad := second.roundTrip(3, "toolhost/rewind", map[string]any{"turn": "nope"})
	if code, msg := errorCode(t, bad); code != -32602 || !strings.Contains(msg, "toolhost/changes") {
		t.Errorf("rewind of an unknown turn: %d %q; want -32602 pointing to toolhost/changes", code, msg)
	}
}
