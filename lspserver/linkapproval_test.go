package lspserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An editor that confirms calls in its own UI (toolhost/checkPermission,
// then toolhost/callTool with its approval token) approved the prompt it
// showed: a read through a link in the workspace that leads, by the time
// the call runs, somewhere else than that prompt named is asked about
// again, not run on the old approval.
func TestApprovedCallThroughALinkPointedElsewhere(t *testing.T) {
	e, _, outside := startTrustEditor(t, map[string]string{"link.txt": "symlink:OUTSIDE/approved.txt"}, true, false)
	for name, text := range map[string]string{"approved.txt": "APPROVED-CONTENT\n", "other.txt": "OTHER-CONTENT\n"} {
		if err := os.WriteFile(filepath.Join(outside, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(e.root, "link.txt")
	input := map[string]any{"file_path": "link.txt"}
	var approval any
	check := func() string {
		t.Helper()
		res := e.call("toolhost/checkPermission", map[string]any{"name": "Read", "input": input})["result"].(map[string]any)
		if res["decision"] != "ask" {
			t.Fatalf("checkPermission: %v, want ask", res)
		}
		approval = res["approval"]
		return res["title"].(string)
	}
	approvedCall := func() string {
		t.Helper()
		return resultText(t, e.call("toolhost/callTool", map[string]any{"name": "Read", "input": input, "approval": approval}))
	}

	// As shown: runs without a second prompt.
	if title := check(); !strings.Contains(title, filepath.Join(outside, "approved.txt")) {
		t.Errorf("the prompt %q does not name where the link leads", title)
	}
	if got := approvedCall(); !strings.Contains(got, "APPROVED-CONTENT") || e.prompts != 0 {
		t.Fatalf("the approved call: %q after %d prompts, want the content without a prompt", got, e.prompts)
	}

	// Pointed elsewhere between the editor's prompt and the call: asked
	// again (and denied), never read on the approval of the other file.
	check()
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "other.txt"), link); err != nil {
		t.Fatal(err)
	}
	if got := approvedCall(); strings.Contains(got, "OTHER-CONTENT") || e.prompts != 1 {
		t.Errorf("the call after the link changed: %q after %d prompts, want one prompt, denied", got, e.prompts)
	}
}
