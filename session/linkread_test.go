package session

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/engine"
)

// answeringHost answers every permission prompt with decision, after
// running meanwhile (what happens while the dialog is open), and records
// the prompts' titles.
type answeringHost struct {
	tools.NoHost
	decision  string
	meanwhile func()

	mu     sync.Mutex
	titles []string
}

func (h *answeringHost) RequestPermission(_ context.Context, req tools.PermissionRequest) (tools.PermissionResponse, error) {
	h.mu.Lock()
	h.titles = append(h.titles, req.Title)
	h.mu.Unlock()
	if h.meanwhile != nil {
		h.meanwhile()
	}
	return tools.PermissionResponse{Decision: h.decision}, nil
}

// A link inside the workspace to a file outside it is read after one
// prompt naming where it leads (or none, when an allow rule names that
// place), and only the file that prompt named: a
// denial, dontAsk, a link pointed elsewhere or a file replaced while the
// prompt is open all leave the call without the content of any file
// outside.
func TestReadThroughALinkLeadingOutside(t *testing.T) {
	const secret, other = "SECRET-CONTENT\n", "OTHER-CONTENT\n"
	tests := []struct {
		name     string
		tool     string
		mode     string
		settings string
		decision string
		// meanwhile changes things while the prompt is open.
		meanwhile func(t *testing.T, link, outside string)
		// prompts is how many prompts the call gets; want is a text the
		// result holds, and ok whether it is a success.
		prompts int
		ok      bool
		want    string
	}{
		{name: "approved", tool: "Read", decision: tools.DecisionAllow, prompts: 1, ok: true, want: "SECRET-CONTENT"},
		{name: "grep approved", tool: "Grep", decision: tools.DecisionAllow, prompts: 1, ok: true, want: "SECRET-CONTENT"},
		{name: "denied", tool: "Read", decision: tools.DecisionDeny, prompts: 1, want: "denied"},
		{name: "a rule allows the real folder", tool: "Read", settings: `{"permissions":{"allow":["Read(//**/outside/**)"]}}`, prompts: 0, ok: true, want: "SECRET-CONTENT"},
		{name: "dontAsk", tool: "Read", mode: tools.ModeDontAsk, prompts: 0, want: "dontAsk"},
		{name: "grep dontAsk", tool: "Grep", mode: tools.ModeDontAsk, prompts: 0, want: "dontAsk"},
		{name: "link pointed elsewhere after the approval", tool: "Read", decision: tools.DecisionAllow, prompts: 1, want: "leads to",
			meanwhile: func(t *testing.T, link, outside string) {
				replaceLink(t, link, filepath.Join(outside, "other.txt"))
			}},
		{name: "grep, link pointed elsewhere after the approval", tool: "Grep", decision: tools.DecisionAllow, prompts: 1, want: "leads to",
			meanwhile: func(t *testing.T, link, outside string) {
				replaceLink(t, link, filepath.Join(outside, "other.txt"))
			}},
		{name: "file replaced after the approval", tool: "Read", decision: tools.DecisionAllow, prompts: 1, want: "replaced",
			meanwhile: func(t *testing.T, link, outside string) {
				if err := os.Rename(filepath.Join(outside, "other.txt"), filepath.Join(outside, "secret.txt")); err != nil {
					t.Fatal(err)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, root := newTestSession(t, tt.settings)
			outside := filepath.Join(filepath.Dir(root), "outside")
			if err := os.MkdirAll(outside, 0o755); err != nil {
				t.Fatal(err)
			}
			for name, content := range map[string]string{"secret.txt": secret, "other.txt": other} {
				if err := os.WriteFile(filepath.Join(outside, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			link := filepath.Join(root, "link.txt")
			if err := os.Symlink(filepath.Join(outside, "secret.txt"), link); err != nil {
				t.Fatal(err)
			}
			if tt.mode != "" {
				if err := s.Permissions.SetMode(tt.mode); err != nil {
					t.Fatal(err)
				}
			}
			host := &answeringHost{decision: tt.decision}
			if tt.meanwhile != nil {
				host.meanwhile = func() { tt.meanwhile(t, link, outside) }
			}
			input := `{"file_path":"link.txt"}`
			if tt.tool == "Grep" {
				input = `{"pattern":"CONTENT","path":"link.txt","output_mode":"content"}`
			}
			resp, err := s.Pipeline.Call(context.Background(), host, engine.Request{Name: tt.tool, Input: json.RawMessage(input)})
			if err != nil {
				t.Fatal(err)
			}
			text := resp.Text()
			if len(host.titles) != tt.prompts {
				t.Fatalf("%d prompts %q, want %d; result %q", len(host.titles), host.titles, tt.prompts, text)
			}
			real := filepath.Join(outside, "secret.txt")
			for _, title := range host.titles {
				if !strings.Contains(title, real) {
					t.Errorf("the prompt %q does not name %s, where the link leads", title, real)
				}
			}
			if resp.IsError == tt.ok || !strings.Contains(text, tt.want) {
				t.Errorf("result (error %v) %q, want %q", resp.IsError, text, tt.want)
			}
			if !tt.ok && (strings.Contains(text, "SECRET-CONTENT") || strings.Contains(text, "OTHER-CONTENT")) {
				t.Errorf("a refused read showed a file outside: %q", text)
			}
			if tt.ok && strings.Contains(text, "OTHER-CONTENT") {
				t.Errorf("the read showed a file that was not approved: %q", text)
			}
			if tt.mode == tools.ModeDontAsk && !strings.Contains(text, real) {
				t.Errorf("the dontAsk refusal %q does not name %s", text, real)
			}
		})
	}
}

// replaceLink points the link at target instead.
func replaceLink(t *testing.T, link, target string) {
	t.Helper()
	tmp := link + ".new"
	if err := os.Symlink(target, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, link); err != nil {
		t.Fatal(err)
	}
}

// Edit, Write and NotebookEdit through a link leading outside are refused,
// prompt or not, in every mode and with allowWritesOutsideWorkspace,
// naming where the link leads; the file there is unchanged.
func TestWritesThroughALinkLeadingOutside(t *testing.T) {
	calls := map[string]string{
		"Edit":         `{"file_path":"link.txt","old_string":"SECRET","new_string":"EDITED"}`,
		"Write":        `{"file_path":"link.txt","content":"WRITTEN\n"}`,
		"NotebookEdit": `{"notebook_path":"link.ipynb","new_source":"x","cell_type":"code","edit_mode":"insert"}`,
	}
	for _, settings := range []string{"", `{"permissions":{"allowWritesOutsideWorkspace":true}}`} {
		for name, input := range calls {
			s, root := newTestSession(t, settings)
			outside := filepath.Join(filepath.Dir(root), "outside")
			if err := os.MkdirAll(outside, 0o755); err != nil {
				t.Fatal(err)
			}
			contents := map[string]string{
				"secret.txt":   "SECRET\n",
				"secret.ipynb": `{"cells":[],"metadata":{},"nbformat":4,"nbformat_minor":5}`,
			}
			for f, content := range contents {
				if err := os.WriteFile(filepath.Join(outside, f), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for link, target := range map[string]string{"link.txt": "secret.txt", "link.ipynb": "secret.ipynb"} {
				if err := os.Symlink(filepath.Join(outside, target), filepath.Join(root, link)); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Permissions.SetMode(tools.ModeBypassPermissions); err != nil {
				t.Fatal(err)
			}
			host := &answeringHost{decision: tools.DecisionAllow}
			// The link was read (approved): the write is refused for
			// where it leads, not for want of a Read.
			for _, f := range []string{"link.txt", "link.ipynb"} {
				if resp, err := s.Pipeline.Call(context.Background(), host, engine.Request{Name: "Read", Input: json.RawMessage(`{"file_path":"` + f + `"}`)}); err != nil || resp.IsError {
					t.Fatalf("Read %s: %v %q", f, err, resp.Text())
				}
			}
			resp, err := s.Pipeline.Call(context.Background(), host, engine.Request{Name: name, Input: json.RawMessage(input)})
			if err != nil {
				t.Fatal(err)
			}
			if !resp.IsError || !strings.Contains(resp.Text(), filepath.Join(outside, "secret.")) || !strings.Contains(resp.Text(), "refused") {
				t.Errorf("%s %s: %q, want a refusal naming where the link leads", settings, name, resp.Text())
			}
			for f, content := range contents {
				if got, _ := os.ReadFile(filepath.Join(outside, f)); string(got) != content {
					t.Errorf("%s %s: %s outside became %q", settings, name, f, got)
				}
			}
		}
	}
}
