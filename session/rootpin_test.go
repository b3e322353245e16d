package session

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/engine"
)

// The workspace root is the folder that was opened: when the root is a link
// re-pointed during the session, every tool is refused with a message that
// says to reopen the folder, and none reads, lists, searches, writes or runs
// a command in the link's new target. Reopening the folder (removing it
// and adding it again) follows the link to where it leads then.
func TestARepointedRootLinkIsRefused(t *testing.T) {
	dir := t.TempDir()
	opened, other, link := filepath.Join(dir, "opened"), filepath.Join(dir, "other"), filepath.Join(dir, "proj")
	files := map[string]string{
		filepath.Join(opened, "a.txt"):          "OPENED-CONTENT\n",
		filepath.Join(other, "a.txt"):           "OTHER-SECRET\n",
		filepath.Join(other, "only-other.txt"):  "OTHER-SECRET\n",
		filepath.Join(opened, ".toolhost", "x"): "",
	}
	s := linkedRootSession(t, dir, files, link, opened, other)
	if err := s.Permissions.SetMode(tools.ModeBypassPermissions); err != nil {
		t.Fatal(err)
	}
	host := &answeringHost{decision: tools.DecisionAllow}
	call := func(name, input string) *engine.Response {
		t.Helper()
		resp, err := s.Pipeline.Call(context.Background(), host, engine.Request{Name: name, Input: json.RawMessage(input)})
		if err != nil {
			t.Fatalf("%s %s: %v", name, input, err)
		}
		return resp
	}
	if resp := call("Read", `{"file_path":"a.txt"}`); resp.IsError || !strings.Contains(resp.Text(), "OPENED-CONTENT") {
		t.Fatalf("Read before the link moved: %q", resp.Text())
	}

	replaceLink(t, link, other)
	calls := []struct{ name, input string }{
		{"Read", `{"file_path":"a.txt"}`},
		{"Read", `{"file_path":` + jsonString(filepath.Join(link, "a.txt")) + `}`},
		{"Write", `{"file_path":"new.txt","content":"WRITTEN\n"}`},
		{"Write", `{"file_path":` + jsonString(filepath.Join(link, "new2.txt")) + `,"content":"WRITTEN\n"}`},
		{"Glob", `{"pattern":"*.txt"}`},
		{"Grep", `{"pattern":"OTHER","output_mode":"content"}`},
		{"Bash", `{"command":"pwd; ls; cat a.txt; echo WRITTEN > new3.txt"}`},
	}
	for _, c := range calls {
		resp := call(c.name, c.input)
		text := resp.Text()
		if !resp.IsError || !strings.Contains(text, "reopen the folder") || !strings.Contains(text, other) {
			t.Errorf("%s %s after the root link moved: %q, want a refusal naming where it leads now and saying to reopen the folder", c.name, c.input, text)
		}
		if strings.Contains(text, "OTHER-SECRET") || strings.Contains(text, "only-other") {
			t.Errorf("%s %s showed the link's new target: %q", c.name, c.input, text)
		}
	}
	for _, f := range []string{"new.txt", "new2.txt", "new3.txt"} {
		if _, err := os.Lstat(filepath.Join(other, f)); err == nil {
			t.Errorf("%s was written in the link's new target", f)
		}
	}

	// Reopened, the folder is what the link leads to now.
	s.SetRoots(nil)
	s.SetRoots([]string{link})
	if resp := call("Read", `{"file_path":"a.txt"}`); resp.IsError || !strings.Contains(resp.Text(), "OTHER-SECRET") {
		t.Errorf("Read after the folder was reopened: %q", resp.Text())
	}
}

// An additional directory is pinned as a root is: after its link is
// re-pointed, the folder it was pinned to is still inside the workspace,
// and the link's new target is not: reading there asks (here: denied),
// writing there is refused, and reading through the link shows nothing.
func TestARepointedAdditionalDirectoryStaysTheFolderItWas(t *testing.T) {
	dir := t.TempDir()
	shared, other, link := filepath.Join(dir, "shared"), filepath.Join(dir, "other"), filepath.Join(dir, "shared-link")
	writeFiles(t, map[string]string{
		filepath.Join(shared, "notes.txt"): "SHARED-NOTES\n",
		filepath.Join(other, "secret.txt"): "OTHER-SECRET\n",
	})
	if err := os.Symlink(shared, link); err != nil {
		t.Fatal(err)
	}
	s, _ := newTestSession(t, `{"permissions":{"additionalDirectories":[`+jsonString(link)+`]}}`)
	host := &answeringHost{decision: tools.DecisionDeny}
	call := func(name string, input map[string]any) *engine.Response {
		t.Helper()
		raw, _ := json.Marshal(input)
		resp, err := s.Pipeline.Call(context.Background(), host, engine.Request{Name: name, Input: raw})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	if resp := call("Read", map[string]any{"file_path": filepath.Join(link, "notes.txt")}); resp.IsError || !strings.Contains(resp.Text(), "SHARED-NOTES") || len(host.titles) != 0 {
		t.Fatalf("Read in the additional directory before the link moved: %q (prompts %q)", resp.Text(), host.titles)
	}

	replaceLink(t, link, other)
	for _, p := range []string{filepath.Join(other, "secret.txt"), filepath.Join(link, "secret.txt")} {
		if resp := call("Read", map[string]any{"file_path": p}); !resp.IsError || strings.Contains(resp.Text(), "OTHER-SECRET") {
			t.Errorf("Read %s after the link moved: %q", p, resp.Text())
		}
	}
	if len(host.titles) == 0 {
		t.Error("reading in the link's new target was not asked about")
	}
	if resp := call("Write", map[string]any{"file_path": filepath.Join(other, "new.txt"), "content": "x"}); !resp.IsError {
		t.Errorf("Write in the link's new target: %q", resp.Text())
	}
	if _, err := os.Stat(filepath.Join(other, "new.txt")); err == nil {
		t.Error("a file was written in the link's new target")
	}
	if resp := call("Read", map[string]any{"file_path": filepath.Join(shared, "notes.txt")}); resp.IsError || !strings.Contains(resp.Text(), "SHARED-NOTES") {
		t.Errorf("Read in the folder the additional directory was pinned to: %q", resp.Text())
	}
}

// The project's MCP servers stay those of the folder that was opened: after
// the root link is re-pointed, a reload of the settings reads the opened
// folder's .mcp.json, not the new target's.
func TestMCPServersStayTheOpenedFolders(t *testing.T) {
	dir := t.TempDir()
	opened, other, link := filepath.Join(dir, "opened"), filepath.Join(dir, "other"), filepath.Join(dir, "proj")
	s := linkedRootSession(t, dir, map[string]string{
		filepath.Join(opened, ".mcp.json"): `{"mcpServers": {}}`,
		filepath.Join(other, ".mcp.json"):  `{"mcpServers": {"other": {"command": "OTHER-SERVER"}`,
	}, link, opened, other)
	if err := s.MCP.Reload(); err != nil {
		t.Fatalf("the opened folder's .mcp.json: %v", err)
	}
	replaceLink(t, link, other)
	if err := s.MCP.Reload(); err != nil {
		t.Errorf("after the root link moved, the reload read its new target's .mcp.json: %v", err)
	}
}

// linkedRootSession writes files, makes link a link to opened, trusts
// opened and other, and starts a session (without MCP servers) whose root
// is link.
func linkedRootSession(t *testing.T, dir string, files map[string]string, link, opened, other string) *Session {
	t.Helper()
	writeFiles(t, files)
	if err := os.Symlink(opened, link); err != nil {
		t.Fatal(err)
	}
	trust := settings.TrustFile{Path: filepath.Join(dir, settings.TrustFileName)}
	for _, d := range []string{opened, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := trust.Trust(d); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(Options{Roots: []string{link}, UserConfigPath: filepath.Join(dir, "none.json"), NoMCP: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// writeFiles writes each file (an absolute path) with its content, making
// its folders.
func writeFiles(t *testing.T, files map[string]string) {
	t.Helper()
	for name, content := range files {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
