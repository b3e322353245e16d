// Package scripttest replays a folder of scripted sessions as subtests: the
// one Go test behind testdata/sessions (the editor connection) and
// testdata/mcp (toolhost mcp).
package scripttest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/script"
)

// Run replays every *.txtar in folder, each as a subtest in its own
// workspace under a fresh temporary folder. serve returns the server for
// the session whose workspace folder is dir (the root is dir/ws). With
// update, each session's expectations are rewritten with the server's
// messages. The developer's own user settings (XDG_CONFIG_HOME) are kept
// out of the sessions: each session's user config folder is dir/xdg, so a
// session's archive can hold the user's own settings as
// xdg/toolhost/settings.json (trusted, unlike the workspace's).
func Run(t *testing.T, folder string, opts script.Options, update bool, serve func(dir string) script.ServeFunc) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(folder, "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no sessions in %s", folder)
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			s, err := script.Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			o := opts
			o.Dir, o.Update = t.TempDir(), update
			t.Setenv("XDG_CONFIG_HOME", filepath.Join(o.Dir, "xdg"))
			// Nor does anything of the developer's home (~/.claude/skills).
			home := filepath.Join(o.Dir, "home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				t.Fatal(err)
			}
			t.Setenv("HOME", home)
			// The deadline only keeps a broken session from hanging the run.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			res, err := s.Replay(ctx, serve(o.Dir), o)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range res.Failures {
				t.Error(f)
			}
			if update && len(res.Failures) == 0 {
				if err := os.WriteFile(file, res.Archive, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
