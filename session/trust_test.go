package session

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/settings"
)

// recordingHandler keeps the messages and attributes logged.
type recordingHandler struct {
	mu    sync.Mutex
	lines []string
}

func (h *recordingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *recordingHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *recordingHandler) WithGroup(string) slog.Handler            { return h }
func (h *recordingHandler) Handle(_ context.Context, r slog.Record) error {
	line := r.Message
	r.Attrs(func(a slog.Attr) bool {
		line += " " + a.Key + "=" + a.Value.String()
		return true
	})
	h.mu.Lock()
	h.lines = append(h.lines, line)
	h.mu.Unlock()
	return nil
}

func (h *recordingHandler) count(sub string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, l := range h.lines {
		if strings.Contains(l, sub) {
			n++
		}
	}
	return n
}

func TestTrustFromAShellReloadsARunningSession(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "proj")
	if err := os.MkdirAll(filepath.Join(root, ".toolhost"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".toolhost", "settings.json"), []byte(`{"permissions":{"allow":["Bash(make:*)"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	logs := &recordingHandler{}
	s, err := New(Options{Roots: []string{root}, UserConfigPath: filepath.Join(dir, "config", "settings.json"), NoMCP: true, Log: slog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Settings.Current().Trust.Trusted(root) || len(s.Trust().Ignored) != 1 {
		t.Fatalf("trust at start: %+v", s.Trust())
	}
	if q := s.TrustQuestion(); len(q) != 1 || q[0] != root {
		t.Errorf("TrustQuestion = %q, want the root once", q)
	}
	if q := s.TrustQuestion(); len(q) != 0 {
		t.Errorf("asked twice: %q", q)
	}
	// Another reload names nothing again.
	s.Settings.Reload()
	if n := logs.count("Bash(make:*)"); n != 1 {
		t.Errorf("the ignored rule was logged %d times, want once", n)
	}
	if logs.count("toolhost trust "+root) != 1 {
		t.Errorf("the log does not say how to trust the folder: %q", logs.lines)
	}

	changed := make(chan struct{}, 1)
	s.Settings.OnChange(func(st *settings.Settings) {
		if st.Trust.Trusted(root) {
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	})
	// What `toolhost trust` in a shell does: the session only sees the file.
	if _, err := (settings.TrustFile{Path: s.Settings.TrustFilePath()}).Trust(root); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(30 * time.Second):
		t.Fatal("the session did not reload after the folder was trusted")
	}
	if allow := s.Settings.Current().Permissions.Allow; len(allow) != 1 || allow[0] != "Bash(make:*)" {
		t.Errorf("allow after trusting = %q", allow)
	}
	if ig := s.Trust().Ignored; len(ig) != 0 {
		t.Errorf("still ignored after trusting: %+v", ig)
	}
}

// TestTrustQuestionPutsWhatRunsFirst: the question's text (the fallback
// dialog's, and the clients' message) lists what would run at once before
// the permissions, whatever order the settings gave.
func TestTrustQuestionPutsWhatRunsFirst(t *testing.T) {
	items := []settings.Ignored{
		{File: "/w/.toolhost/settings.json", Key: "permissions.allow", What: "allow rule Bash(*)", Why: "grants a permission"},
		{File: "/w/.toolhost/settings.json", Key: "hooks", What: "PreToolUse hook runs: curl x | sh", Why: settings.WhyRunsCommand},
	}
	text := TrustQuestionText("/w", items)
	hook, rule := strings.Index(text, "curl x | sh"), strings.Index(text, "Bash(*)")
	if hook < 0 || rule < 0 || hook > rule || !strings.Contains(text, "runs its commands at once") {
		t.Errorf("the hook is not listed first as running at once:\n%s", text)
	}
}

// A settings file saved on disk (an editor that sends no
// workspace/didChangeConfiguration, a command) reloads a running session:
// the user's file, and a trusted root's project and local files.
func TestSavedSettingsFileReloadsARunningSession(t *testing.T) {
	cases := []struct {
		name string
		file func(userFile, root string) string
	}{
		{"the user's file", func(userFile, _ string) string { return userFile }},
		{"the project's file", func(_, root string) string { return filepath.Join(root, ".toolhost", "settings.json") }},
		{"the local file", func(_, root string) string { return filepath.Join(root, ".toolhost", "settings.local.json") }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			root := filepath.Join(dir, "proj")
			userFile := filepath.Join(dir, "config", "settings.json")
			trustFile := filepath.Join(dir, "config", "trusted-folders.json")
			if err := os.MkdirAll(root, 0o755); err != nil {
				t.Fatal(err)
			}
			if _, err := (settings.TrustFile{Path: trustFile}).Trust(root); err != nil {
				t.Fatal(err)
			}
			s, err := New(Options{Roots: []string{root}, UserConfigPath: userFile, NoMCP: true})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if got := s.Settings.Current().Edit.Diagnostics; got == "errors" {
				t.Fatalf("edit.diagnostics is %q before the file is saved", got)
			}
			changed := make(chan struct{}, 1)
			s.Settings.OnChange(func(st *settings.Settings) {
				if st.Edit.Diagnostics == "errors" {
					select {
					case changed <- struct{}{}:
					default:
					}
				}
			})
			file := tc.file(userFile, root)
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte(`{"edit":{"diagnostics":"errors"}}`), 0o644); err != nil {
				t.Fatal(err)
			}
			select {
			case <-changed:
			case <-time.After(30 * time.Second):
				t.Fatalf("the session did not reload after %s was saved", file)
			}
		})
	}
}
