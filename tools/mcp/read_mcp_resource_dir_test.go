package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/settings"
)

// TestReadMcpResourceDirAndRefresh runs both tools against a real server
// (server-everything): a directory of its resources lists its direct
// children with subdirectories as inode/directory; a refresh re-lists its
// tools and says how many; a server that is not up is not_connected.
func TestReadMcpResourceDirAndRefresh(t *testing.T) {
	down := settings.MCPServer{Command: "/nonexistent/mcp-server"}
	_, reg, log := startManager(t, t.TempDir(), map[string]settings.MCPServer{"everything": everythingServer(t), "down": down}, nil)
	log.waitFor(t, 0, "everything connected", connected("everything"))

	listed, _ := call(t, reg, "ListMcpResources", map[string]any{"server": "everything"})
	var entries []ResourceEntry
	if err := json.Unmarshal([]byte(listed.Text()), &entries); err != nil || len(entries) == 0 {
		t.Fatalf("listing: %v %s", err, listed.Text())
	}
	// A resource two levels below some folder: its folder and that folder's parent.
	var file, dir, parent string
	for _, e := range entries {
		i := strings.LastIndexByte(e.URI, '/')
		j := strings.LastIndexByte(e.URI[:max(i, 0)], '/')
		if i > 0 && j > strings.Index(e.URI, "://")+2 {
			file, dir, parent = e.URI, e.URI[:i], e.URI[:j]
			break
		}
	}
	if file == "" {
		t.Fatalf("no nested resource in %s", listed.Text())
	}
	res, _ := call(t, reg, "ReadMcpResourceDir", map[string]any{"server": "everything", "uri": dir})
	out := res.Structured.(ReadMcpResourceDirOutput)
	if res.IsError || !hasEntry(out, file, "") {
		t.Errorf("%s: %s", dir, res.Text())
	}
	res, _ = call(t, reg, "ReadMcpResourceDir", map[string]any{"server": "everything", "uri": parent + "/"})
	out = res.Structured.(ReadMcpResourceDirOutput)
	if res.IsError || !hasEntry(out, dir, DirectoryMimeType) || hasEntry(out, file, "") {
		t.Errorf("%s: want %s as a directory and not %s: %s", parent, dir, file, res.Text())
	}
	if res, _ := call(t, reg, "ReadMcpResourceDir", map[string]any{"server": "ghost", "uri": "x://y"}); !res.IsError || !strings.Contains(res.Text(), `no MCP server named "ghost"`) {
		t.Errorf("unknown server: %s", res.Text())
	}

	res, _ = call(t, reg, "RefreshMcpTools", map[string]any{})
	ref := res.Structured.([]RefreshEntry)
	if res.IsError || len(ref) != 2 {
		t.Fatalf("refresh: %s", res.Text())
	}
	byName := map[string]RefreshEntry{ref[0].Server: ref[0], ref[1].Server: ref[1]}
	if e := byName["everything"]; e.Status != RefreshRefreshed || e.ToolCount == nil || *e.ToolCount == 0 || len(e.Added)+len(e.Removed) != 0 {
		t.Errorf("everything: %+v", e)
	}
	if e := byName["down"]; e.Status != RefreshNotConnected || e.Error == "" {
		t.Errorf("down: %+v", e)
	}
	// Tools removed behind the manager's back come back with a refresh.
	reg.RemovePrefix(ToolPrefix("everything"))
	res, _ = call(t, reg, "RefreshMcpTools", map[string]any{"server": "everything"})
	if e := res.Structured.([]RefreshEntry)[0]; e.Status != RefreshRefreshed || len(e.Added) == 0 || len(e.Added) != *e.ToolCount {
		t.Errorf("refresh after removal: %+v", e)
	}
	if _, ok := reg.Lookup(ToolPrefix("everything") + "echo"); !ok {
		t.Errorf("echo is not registered after the refresh")
	}
}

func hasEntry(out ReadMcpResourceDirOutput, uri, mime string) bool {
	for _, e := range out.Resources {
		if e.URI == uri && (mime == "" || e.MimeType == mime) {
			return true
		}
	}
	return false
}
