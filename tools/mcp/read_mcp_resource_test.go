package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testnpm"
	"github.com/toolhost/toolhost/settings"
)

func TestReadMcpResource(t *testing.T) {
	files := t.TempDir()
	if err := os.WriteFile(filepath.Join(files, "notes.txt"), []byte("the quick brown fox\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fsServer := settings.MCPServer{Command: "node", Args: []string{
		filepath.Join(testnpm.Package(t, "@modelcontextprotocol/server-filesystem"), "dist", "index.js"), files}}
	// server-filesystem serves the client's roots (the workspace) when it
	// gets them, so the workspace is the folder it serves.
	_, reg, log := startManager(t, files, map[string]settings.MCPServer{"everything": everythingServer(t), "files": fsServer}, nil)
	log.waitFor(t, 0, "everything connected", connected("everything"))
	log.waitFor(t, 0, "files connected", connected("files"))

	// The first listed static resource of server-everything is text.
	listed, _ := call(t, reg, "ListMcpResources", map[string]any{"server": "everything"})
	var firstURI string
	if i := strings.Index(listed.Text(), `"uri": "`); i >= 0 {
		rest := listed.Text()[i+len(`"uri": "`):]
		firstURI = rest[:strings.Index(rest, `"`)]
	}
	if firstURI == "" {
		t.Fatalf("no uri in listing: %s", listed.Text())
	}

	tests := []struct {
		name     string
		input    map[string]any
		wantText string
		wantErr  bool
	}{
		{name: "listed text resource", input: map[string]any{"server": "everything", "uri": firstURI}, wantText: ""},
		{name: "text from a template", input: map[string]any{"server": "everything", "uri": "demo://resource/dynamic/text/1"}, wantText: "Resource 1"},
		{name: "blob says size and type", input: map[string]any{"server": "everything", "uri": "demo://resource/dynamic/blob/1"}, wantText: "bytes, text/plain; not shown as text"},
		{name: "unknown server", input: map[string]any{"server": "ghost", "uri": "x://y"}, wantErr: true, wantText: "no MCP server named \"ghost\""},
		{name: "unknown uri", input: map[string]any{"server": "everything", "uri": "demo://nothing/here"}, wantErr: true, wantText: "could not read"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, _ := call(t, reg, "ReadMcpResource", tc.input)
			if res.IsError != tc.wantErr {
				t.Fatalf("IsError = %v, want %v: %s", res.IsError, tc.wantErr, res.Text())
			}
			if strings.TrimSpace(res.Text()) == "" {
				t.Fatal("empty result")
			}
			if !strings.Contains(res.Text(), tc.wantText) {
				t.Fatalf("result %q lacks %q", res.Text(), tc.wantText)
			}
			if out, ok := res.Structured.(ReadMcpResourceOutput); !tc.wantErr && (!ok || len(out.Contents) == 0 || out.Contents[0].URI != tc.input["uri"]) {
				t.Fatalf("structured output %+v does not list the read contents", res.Structured)
			}
		})
	}

	t.Run("filesystem server reads a file", func(t *testing.T) {
		res, _ := call(t, reg, "mcp__files__read_text_file", map[string]any{"path": filepath.Join(files, "notes.txt")})
		if res.IsError || !strings.Contains(res.Text(), "the quick brown fox") {
			t.Fatalf("read_text_file: %+v", res)
		}
	})
}
