package mcpserver

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testnpm"
)

// toolhostBinary builds cmd/toolhost, or takes TOOLHOST_BIN when set (to
// test a release build).
func toolhostBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("TOOLHOST_BIN"); bin != "" {
		return bin
	}
	_, file, _, _ := runtime.Caller(0)
	bin := filepath.Join(t.TempDir(), "toolhost")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/toolhost")
	cmd.Dir = filepath.Join(filepath.Dir(file), "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building toolhost: %v\n%s", err, out)
	}
	return bin
}

type nodeCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
	Progress  bool           `json:"progress,omitempty"`
}

type nodeReport struct {
	ServerInfo   struct{ Name string } `json:"serverInfo"`
	Elicitations []string              `json:"elicitations"`
	Tools        []struct {
		Name        string          `json:"name"`
		Annotations map[string]bool `json:"annotations"`
	} `json:"tools"`
	Results []struct {
		Name          string `json:"name"`
		IsError       bool   `json:"isError"`
		ProtocolError string `json:"protocolError"`
		Content       []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"results"`
}

// TestNodeClientAgainstBinary drives `toolhost mcp` from the TypeScript
// SDK's client in a separate process.
func TestNodeClientAgainstBinary(t *testing.T) {
	testnpm.Package(t, "@modelcontextprotocol/sdk") // the Node client's SDK
	mcpDir := testnpm.Dir()
	bin := toolhostBinary(t)
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "a.txt"), []byte("alpha\nbeta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, _ := json.Marshal(map[string]any{
		"command": bin, "args": []string{"mcp"}, "cwd": work, "elicitation": "allow",
		"calls": []nodeCall{
			{Name: "ListMcpResources", Arguments: map[string]any{}},
			{Name: "ReadMcpResource", Arguments: map[string]any{"server": "everything", "uri": "demo://resource/dynamic/text/1"}},
			{Name: "ReadMcpResource", Arguments: map[string]any{"server": "everything"}},
			{Name: "Read", Arguments: map[string]any{"file_path": filepath.Join(work, "a.txt"), "offset": 2, "limit": 1}},
			// Allowed by the permission mode or, when it asks, by the
			// client's answer to the elicitation form.
			{Name: "Bash", Arguments: map[string]any{"command": "echo hi from bash"}, Progress: true},
			{Name: "AskUserQuestion", Arguments: map[string]any{"questions": []any{map[string]any{
				"question": "Which color?", "header": "Color", "multiSelect": false,
				"options": []any{map[string]any{"label": "Blue", "description": "calm"}, map[string]any{"label": "Red", "description": "bold"}}}}}},
		},
	})
	cmd := exec.Command("node", filepath.Join(mcpDir, "client.mjs"), string(spec))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client: %v\n%s", err, out)
	}
	var rep nodeReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("client output: %v\n%s", err, out)
	}
	if rep.ServerInfo.Name != "toolhost" {
		t.Errorf("server name = %q", rep.ServerInfo.Name)
	}
	listed := map[string]map[string]bool{}
	for _, tl := range rep.Tools {
		listed[tl.Name] = tl.Annotations
	}
	if a, ok := listed["ReadMcpResource"]; !ok || !a["readOnlyHint"] {
		t.Fatalf("ReadMcpResource missing or not read-only: %v", rep.Tools)
	}
	if len(rep.Results) != 6 {
		t.Fatalf("results: %+v", rep.Results)
	}
	text := func(i int) string {
		var parts []string
		for _, c := range rep.Results[i].Content {
			parts = append(parts, c.Text)
		}
		return strings.Join(parts, "\n")
	}
	if r := rep.Results[0]; r.IsError || !strings.Contains(text(0), "No MCP servers are configured") {
		t.Errorf("ListMcpResources: isError=%v %q %s", r.IsError, text(0), r.ProtocolError)
	}
	if r := rep.Results[1]; !r.IsError || !strings.Contains(text(1), `no MCP server named "everything"`) {
		t.Errorf("ReadMcpResource of an unknown server: isError=%v %q %s", r.IsError, text(1), r.ProtocolError)
	}
	if r := rep.Results[2]; !r.IsError || !strings.Contains(text(2), "uri") {
		t.Errorf("ReadMcpResource without uri: isError=%v %q %s", r.IsError, text(2), r.ProtocolError)
	}
	if r := rep.Results[3]; r.IsError || !strings.Contains(text(3), "2\tbeta") || strings.Contains(text(3), "alpha") {
		t.Errorf("Read of line 2: isError=%v %q %s", r.IsError, text(3), r.ProtocolError)
	}
	if r := rep.Results[4]; r.IsError || !strings.Contains(text(4), "hi from bash") {
		t.Errorf("Bash: isError=%v %q %s", r.IsError, text(4), r.ProtocolError)
	}
	for _, msg := range rep.Elicitations {
		if strings.Contains(msg, "Which color?") {
			continue
		}
		if !strings.Contains(msg, "Bash") || !strings.Contains(msg, "echo hi from bash") {
			t.Errorf("a permission form does not show the call: %q", msg)
		}
	}
	if r := rep.Results[5]; r.IsError || !strings.Contains(text(5), "Blue") {
		t.Errorf("AskUserQuestion answered through elicitation: isError=%v %q %s", r.IsError, text(5), r.ProtocolError)
	}
}
