package mcp

import (
	"strings"
	"testing"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
)

func TestEverythingServerTools(t *testing.T) {
	_, reg, log := startManager(t, t.TempDir(), map[string]settings.MCPServer{"everything": everythingServer(t)}, nil)
	st, _ := log.waitFor(t, 0, "everything connected", connected("everything"))
	if st.Tools == 0 || st.PID == 0 {
		t.Fatalf("connected status lacks tools or pid: %+v", st)
	}

	e, ok := reg.Lookup("mcp__everything__echo")
	if !ok {
		t.Fatalf("echo not registered: %v", reg.Names())
	}
	if e.Category != tools.CategoryMCP {
		t.Errorf("category = %q", e.Category)
	}
	if !strings.Contains(string(e.Tool.InputSchema()), `"message"`) {
		t.Errorf("echo schema lacks message: %s", e.Tool.InputSchema())
	}
	if d := e.Tool.(tools.Documented).Docs(); d.Short == "" || !strings.Contains(d.Long, `MCP server "everything" as its tool "echo"`) {
		t.Errorf("docs = %+v", d)
	}
	res, _ := call(t, reg, "mcp__everything__echo", map[string]any{"message": "hello there"})
	if res.IsError || !strings.Contains(res.Text(), "hello there") {
		t.Fatalf("echo result: %+v", res)
	}

	res, progress := call(t, reg, "mcp__everything__trigger-long-running-operation", map[string]any{"duration": 0.3, "steps": 3})
	if res.IsError {
		t.Fatalf("long running operation failed: %s", res.Text())
	}
	// The last notification may still be in flight when the result arrives,
	// so the count is not asserted, only that steps were reported.
	got := progress.Messages()
	if len(got) == 0 {
		t.Fatal("no progress reported for the long running operation")
	}
	for _, msg := range got {
		if msg != "1/3" && msg != "2/3" && msg != "3/3" {
			t.Fatalf("progress report %q is not a step of 3", msg)
		}
	}

	res, _ = call(t, reg, "mcp__everything__get-tiny-image", map[string]any{})
	var images int
	for _, c := range res.Content {
		if c.Type == "image" && c.MimeType == "image/png" && c.Data != "" {
			images++
		}
	}
	if images != 1 {
		t.Fatalf("tiny image result has %d images: %+v", images, res.Content)
	}
}
