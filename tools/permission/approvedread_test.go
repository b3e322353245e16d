package permission

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/tools"
)

// An allowed read outside the workspace carries the checker's approval of
// the real path it reads, whoever allowed it (the user, a rule naming the
// real place, bypassPermissions); a denied one carries none, and in dontAsk
// the refusal names where the link leads.
func TestApprovedReadsNameTheRealPath(t *testing.T) {
	real := func(e *testEnv) string { return filepath.Join(e.outside, "secret.txt") }
	tests := []struct {
		name     string
		settings string
		mode     string
		answer   string
		// approved is whether the call is allowed with an approval;
		// otherwise it is refused with a message holding wantMsg.
		approved bool
		wantMsg  string
	}{
		{name: "the user allows", answer: tools.DecisionAllow, approved: true},
		{name: "the user denies", answer: tools.DecisionDeny, wantMsg: "denied"},
		{name: "a rule names the real folder", settings: `{"permissions": {"allow": ["Read(//**/outside/**)"]}}`, approved: true},
		// A rule naming the link's own path reads as inside the folder;
		// it does not reach where the link leads: the user is asked.
		{name: "a rule names the link", settings: `{"permissions": {"allow": ["Read(link/**)"]}}`, answer: tools.DecisionDeny, wantMsg: "denied"},
		{name: "a rule names every file of the folder", settings: `{"permissions": {"allow": ["Read(**)"]}}`, answer: tools.DecisionDeny, wantMsg: "denied"},
		{name: "bypassPermissions", mode: tools.ModeBypassPermissions, approved: true},
		{name: "dontAsk", mode: tools.ModeDontAsk, wantMsg: "dontAsk"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.settings)
			host := &fakeHost{resp: tools.PermissionResponse{Decision: tt.answer}}
			pc := tools.PermissionCall{Tool: readTool, Input: json.RawMessage(`{}`), Access: tools.Access{ReadPaths: []string{"link/secret.txt"}}}
			out, err := e.checker(tt.mode).Check(context.Background(), host, pc)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.approved {
				if out.Allow || len(out.ApprovedReads) > 0 || !strings.Contains(out.Message, tt.wantMsg) {
					t.Fatalf("allowed %v with %v (%q), want a refusal saying %q", out.Allow, out.ApprovedReads, out.Message, tt.wantMsg)
				}
				if tt.mode == tools.ModeDontAsk && !strings.Contains(out.Message, real(e)) {
					t.Errorf("the dontAsk refusal %q does not name %s", out.Message, real(e))
				}
				return
			}
			if !out.Allow || len(out.ApprovedReads) != 1 {
				t.Fatalf("allowed %v with %v (%q), want one approved read", out.Allow, out.ApprovedReads, out.Message)
			}
			a := out.ApprovedReads[0]
			if a.Path != filepath.Join(e.root, "link", "secret.txt") || a.Real != real(e) {
				t.Errorf("approved %s as %s, want %s as %s", a.Path, a.Real, filepath.Join(e.root, "link", "secret.txt"), real(e))
			}
			if len(host.requests) > 1 {
				t.Errorf("asked %d times", len(host.requests))
			}
		})
	}
	// A read inside the workspace needs no approval.
	e := newEnv(t, "")
	pc := tools.PermissionCall{Tool: readTool, Input: json.RawMessage(`{}`), Access: tools.Access{ReadPaths: []string{"src/a.go"}}}
	if out, _ := e.checker("").Check(context.Background(), &fakeHost{}, pc); !out.Allow || len(out.ApprovedReads) > 0 {
		t.Errorf("a read inside: allowed %v with %v", out.Allow, out.ApprovedReads)
	}
}

// A write through a link in the workspace that leads outside is refused in
// every mode, naming where it leads; with allowWritesOutsideWorkspace the
// refusal says to give that real path, which is then asked about by name.
func TestWritesThroughALinkLeadingOutside(t *testing.T) {
	for _, settings := range []string{"", `{"permissions": {"allowWritesOutsideWorkspace": true}}`} {
		for _, mode := range []string{tools.ModeDefault, tools.ModeAcceptEdits, tools.ModeBypassPermissions} {
			e := newEnv(t, settings)
			real := filepath.Join(e.outside, "secret.txt")
			host := &fakeHost{resp: tools.PermissionResponse{Decision: tools.DecisionAllow}}
			pc := tools.PermissionCall{Tool: editTool, Input: json.RawMessage(`{}`), Access: tools.Access{WritePaths: []string{"link/secret.txt"}}}
			out, err := e.checker(mode).Check(context.Background(), host, pc)
			if err != nil {
				t.Fatal(err)
			}
			if out.Allow || len(host.requests) > 0 || !strings.Contains(out.Message, real) || !strings.Contains(out.Message, "refused in every permission mode") {
				t.Errorf("%s %s: allowed %v after %d prompts (%q), want a refusal naming %s", settings, mode, out.Allow, len(host.requests), out.Message, real)
			}
			if settings != "" && !strings.Contains(out.Message, "To change the file there, give its own path") {
				t.Errorf("%s %s: %q does not say to give the real path", settings, mode, out.Message)
			}
			// Its real path is asked about by name, where such writes may be.
			pc.Access.WritePaths = []string{real}
			out, _ = e.checker(mode).Check(context.Background(), host, pc)
			if asked := len(host.requests) == 1 && strings.Contains(host.requests[0].Title, real); settings != "" && (!out.Allow || !asked) {
				t.Errorf("%s %s: the real path: allowed %v, prompts %v (%q)", settings, mode, out.Allow, host.requests, out.Message)
			}
		}
	}
}
