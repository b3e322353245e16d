package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testnpm"
	"github.com/toolhost/toolhost/session"
	"github.com/toolhost/toolhost/tools"
)

// runCLI runs a command line in-process and returns its exit code and output.
func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestToolReferenceIsCurrent fails when docs/tools.md differs from what
// `toolhost tools docs` writes: run `make docs` and commit the result.
func TestToolReferenceIsCurrent(t *testing.T) {
	// As `make docs` generates them: with no user skills (an empty home).
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	want, err := referenceDoc()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "..", "docs", "tools.md"))
	if err != nil {
		t.Fatalf("%v: run `make docs` to write the tool reference", err)
	}
	if string(got) != want {
		t.Fatal("docs/tools.md is stale: run `make docs` and commit docs/tools.md")
	}
	for _, name := range []string{"Read", "Write", "Edit", "Bash", "Glob", "Grep", "TodoWrite", "WebFetch", "NotebookEdit"} {
		if !strings.Contains(want, "\n## "+name+"\n") {
			t.Errorf("the reference has no section for %s", name)
		}
	}
}

// TestEveryToolIsComparedWithClaudeCode: the reference says, for every
// built-in tool, how it compares with Claude Code 2.1's (tools.claudecode.go).
func TestEveryToolIsComparedWithClaudeCode(t *testing.T) {
	sess, err := session.New(session.Options{Roots: []string{t.TempDir()}, UserConfigPath: filepath.Join(t.TempDir(), "none.json"), NoMCP: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	for _, e := range sess.Registry.Entries(true) {
		if e.Category == tools.CategoryMCP && strings.HasPrefix(e.Tool.Name(), "mcp__") || e.Category == tools.CategoryTeams {
			continue
		}
		if _, ok := tools.ClaudeCodeComparison(e.Tool.Name()); !ok {
			t.Errorf("%s is not compared with Claude Code: add it to tools/claudecode.go", e.Tool.Name())
		}
	}
}

func TestCallPrintsAResultAndExitsNonZeroOnAnError(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("alpha\nbeta\ngamma\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "", "call", "--root", dir, "Read", `{"file_path":"notes.txt","offset":2,"limit":1}`)
	if code != 0 || !strings.Contains(out, "beta") || strings.Contains(out, "gamma") {
		t.Fatalf("Read: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	// The CLI user asked for the write: no prior Read is needed.
	code, out, errOut = runCLI(t, "", "call", "--root", dir, "Write", `{"file_path":"new/out.txt","content":"hi\n"}`)
	if code != 0 {
		t.Fatalf("Write: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "new", "out.txt")); err != nil || string(b) != "hi\n" {
		t.Fatalf("the file written is %q, %v", b, err)
	}
	code, out, _ = runCLI(t, "", "call", "--root", dir, "Read", `{"file_path":"missing.txt"}`)
	if code != 1 || !strings.Contains(out, "Error: ") {
		t.Fatalf("Read of a missing file: code %d, stdout %q", code, out)
	}
	code, _, errOut = runCLI(t, "", "call", "--root", dir, "Read", `{not json`)
	if code != 2 || !strings.Contains(errOut, "not valid JSON") {
		t.Fatalf("bad JSON: code %d, stderr %q", code, errOut)
	}
	code, out, _ = runCLI(t, `{"file_path":"notes.txt"}`, "call", "--root", dir, "--json", "Read", "-")
	var resp struct {
		Content []struct{ Text string } `json:"content"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &resp) != nil || len(resp.Content) == 0 || !strings.Contains(resp.Content[0].Text, "alpha") {
		t.Fatalf("--json with input on stdin: code %d, stdout %q", code, out)
	}
}

func TestToolsEnableAndDisableWriteLocalSettings(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI(t, "", "tools", "disable", "--root", dir, "bash", "WebFetch")
	if code != 0 {
		t.Fatalf("disable: code %d, %s %s", code, out, errOut)
	}
	local := filepath.Join(dir, ".toolhost", "settings.local.json")
	var doc struct {
		Tools struct{ Disabled []string } `json:"tools"`
	}
	b, err := os.ReadFile(local)
	if err != nil || json.Unmarshal(b, &doc) != nil {
		t.Fatalf("reading %s: %v\n%s", local, err, b)
	}
	if strings.Join(doc.Tools.Disabled, ",") != "Bash,WebFetch" {
		t.Fatalf("tools.disabled = %v, want the canonical names Bash, WebFetch", doc.Tools.Disabled)
	}
	// A session of that workspace no longer runs Bash.
	code, out, _ = runCLI(t, "", "call", "--root", dir, "Bash", `{"command":"echo hi"}`)
	if code != 1 || !strings.Contains(out, "disabled") {
		t.Fatalf("Bash after disable: code %d, stdout %q", code, out)
	}
	if code, out, errOut = runCLI(t, "", "tools", "enable", "--root", dir, "Bash"); code != 0 {
		t.Fatalf("enable: code %d, %s %s", code, out, errOut)
	}
	b, _ = os.ReadFile(local)
	doc.Tools.Disabled = nil
	if err := json.Unmarshal(b, &doc); err != nil || strings.Join(doc.Tools.Disabled, ",") != "WebFetch" {
		t.Fatalf("after enable Bash: %s", b)
	}
	if code, _, errOut = runCLI(t, "", "tools", "disable", "--root", dir, "NoSuchTool"); code != 1 || !strings.Contains(errOut, "unknown tools: NoSuchTool") {
		t.Fatalf("unknown tool: code %d, stderr %q", code, errOut)
	}
}

func TestDemoReplaysTheSampleSession(t *testing.T) {
	file := filepath.Join("..", "..", "testdata", "sessions", "demo.txtar")
	code, out, errOut := runCLI(t, "", "demo", file)
	if code != 0 {
		t.Fatalf("demo: code %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"initialize", "toolhost/listTools", "Grep", "Edit", "Every message matched"} {
		if !strings.Contains(out, want) {
			t.Errorf("the demo output lacks %q", want)
		}
	}
}

func TestUnknownCommandPrintsUsage(t *testing.T) {
	code, _, errOut := runCLI(t, "", "frobnicate")
	if code != 2 || !strings.Contains(errOut, "Usage:") {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
}

// TestServeAcceptsTheFlagsLSPClientsAdd: vscode-languageclient starts a
// stdio server with --stdio appended; refusing it kills every session.
func TestServeAcceptsTheFlagsLSPClientsAdd(t *testing.T) {
	code, _, errOut := runCLI(t, "", "serve", "--stdio", "--clientProcessId=42")
	// Empty input: the client left without shutdown, exit code 1 as LSP says.
	if code != 1 || strings.Contains(errOut, "flag provided but not defined") {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
}

// TestCallRunsAnMCPTool: `toolhost call` starts the project's MCP servers
// for a call of one of their tools and waits for them to connect.
func TestCallRunsAnMCPTool(t *testing.T) {
	abs, err := filepath.Abs(testnpm.EverythingScript(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"everything": map[string]any{"command": "node", "args": []string{abs, "stdio"}}}})
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	// A folder's .mcp.json is read only once the folder is trusted.
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	if code, out, errOut := runCLI(t, "", "trust", dir); code != 0 {
		t.Fatalf("trust: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut := runCLI(t, "", "call", "--root", dir, "mcp__everything__echo", `{"message":"from the shell"}`)
	if code != 0 || !strings.Contains(out, "from the shell") {
		t.Fatalf("code %d, stdout %q, stderr %q", code, out, errOut)
	}
	// ListMcpResources is an MCP tool too: it sees the started server.
	code, out, errOut = runCLI(t, "", "call", "--root", dir, "ListMcpResources", `{"server":"everything"}`)
	if code != 0 || !strings.Contains(out, `"server": "everything"`) {
		t.Fatalf("ListMcpResources: code %d, stdout %.300q, stderr %q", code, out, errOut)
	}
}
