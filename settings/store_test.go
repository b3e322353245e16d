package settings

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testfifo"
)

// testTree is a user config file and one workspace root in a temp folder.
type testTree struct {
	user string
	root string
}

// newTree returns a tree whose root the user trusts, so its project layers
// apply in full (trust_test.go covers untrusted folders).
func newTree(t *testing.T) testTree {
	t.Helper()
	tt := newUntrustedTree(t)
	if _, err := tt.trustFile().Trust(tt.root); err != nil {
		t.Fatal(err)
	}
	return tt
}

// newUntrustedTree returns a tree whose root nobody trusted.
func newUntrustedTree(t *testing.T) testTree {
	t.Helper()
	dir := t.TempDir()
	root := filepath.Join(dir, "proj")
	if err := os.MkdirAll(filepath.Join(root, ProjectDir), 0o755); err != nil {
		t.Fatal(err)
	}
	return testTree{user: filepath.Join(dir, "config", "toolhost", "settings.json"), root: root}
}

func (tt testTree) trustFile() TrustFile {
	return TrustFile{Path: filepath.Join(filepath.Dir(tt.user), TrustFileName)}
}

func (tt testTree) project() string { return filepath.Join(tt.root, ProjectDir, ProjectFile) }
func (tt testTree) local() string   { return LocalPath(tt.root) }

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (tt testTree) store(init string) *Store {
	var raw json.RawMessage
	if init != "" {
		raw = json.RawMessage(init)
	}
	return NewStore(LoadOptions{Roots: []string{tt.root}, UserConfigPath: tt.user, InitOptions: raw})
}

func TestStoreLayering(t *testing.T) {
	tt := newTree(t)
	writeFile(t, tt.user, `{
		"permissions": {"allow": ["Bash(git status)"], "defaultMode": "plan"},
		"bash": {"defaultTimeoutMs": 1000, "maxOutputChars": 500},
		"env": {"A": "user", "B": "user"},
		"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "user-hook"}]}]},
		"mcpServers": {"gh": {"command": "gh-user", "args": ["x"]}}
	}`)
	writeFile(t, tt.project(), `{
		"permissions": {"allow": ["Edit(src/**)", "Bash(git status)"], "deny": ["Read(./.env)"]},
		"bash": {"defaultTimeoutMs": 2000},
		"env": {"B": "project"},
		"hooks": {"PreToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "project-hook"}]}]},
		"mcpServers": {"gh": {"type": "http", "url": "http://localhost:1"}}
	}`)
	writeFile(t, tt.local(), `{"permissions": {"ask": ["Bash(rm:*)"], "defaultMode": "acceptEdits"}, "edit": {"fuzzy": true}}`)
	s := tt.store(`{"bash": {"defaultTimeoutMs": 3000}, "permissions": {"allow": ["WebFetch(domain:example.com)"]}}`)
	s.ApplyConfigurationChange(json.RawMessage(`{"toolhost": {"bash": {"compressOutput": true}, "env": {"C": "change"}}}`))

	if p := s.Problems(); len(p) != 0 {
		t.Fatalf("unexpected problems: %v", p)
	}
	got := s.Current()
	if want := []string{"Bash(git status)", "Edit(src/**)", "WebFetch(domain:example.com)"}; !reflect.DeepEqual(got.Permissions.Allow, want) {
		t.Errorf("allow = %q, want %q (concatenated across layers, no duplicates)", got.Permissions.Allow, want)
	}
	if !reflect.DeepEqual(got.Permissions.Deny, []string{"Read(./.env)"}) || !reflect.DeepEqual(got.Permissions.Ask, []string{"Bash(rm:*)"}) {
		t.Errorf("deny/ask = %q / %q", got.Permissions.Deny, got.Permissions.Ask)
	}
	if got.Permissions.DefaultMode != "acceptEdits" {
		t.Errorf("defaultMode = %q, want the local file's acceptEdits", got.Permissions.DefaultMode)
	}
	if got.Bash.DefaultTimeoutMs != 3000 || got.Bash.MaxOutputChars != 500 || got.Bash.MaxTimeoutMs != 600_000 || !got.Bash.CompressOutput {
		t.Errorf("bash = %+v: want init's timeout, user's output cap, default max timeout, change's compressOutput", got.Bash)
	}
	if want := map[string]string{"A": "user", "B": "project", "C": "change"}; !reflect.DeepEqual(got.Env, want) {
		t.Errorf("env = %v, want %v (merged by key)", got.Env, want)
	}
	var hookCmds []string
	for _, m := range got.Hooks["PreToolUse"] {
		for _, h := range m.Hooks {
			hookCmds = append(hookCmds, h.Command)
		}
	}
	if !reflect.DeepEqual(hookCmds, []string{"user-hook", "project-hook"}) {
		t.Errorf("PreToolUse hooks = %q, want both layers' in order", hookCmds)
	}
	if gh := got.MCPServers["gh"]; gh.Command != "" || gh.URL != "http://localhost:1" || gh.Args != nil {
		t.Errorf("mcpServers.gh = %+v, want the project's definition whole", gh)
	}
	if !got.Edit.Fuzzy {
		t.Error("edit.fuzzy from the local file was lost")
	}
}

func TestStoreXDGConfigHome(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	writeFile(t, filepath.Join(dir, "toolhost", "settings.json"), `{"edit": {"fuzzy": true}}`)
	if got := DefaultUserConfigPath(); got != filepath.Join(dir, "toolhost", "settings.json") {
		t.Fatalf("DefaultUserConfigPath = %s", got)
	}
	s := NewStore(LoadOptions{Roots: []string{t.TempDir()}})
	if !s.Current().Edit.Fuzzy {
		t.Error("the file under XDG_CONFIG_HOME was not read")
	}
}

func TestStoreProblems(t *testing.T) {
	tests := []struct {
		name    string
		project string
		// wantKey is the key the problem names ("" for the whole file).
		wantKey string
		wantMsg string
		// check tests what survived.
		check func(t *testing.T, s *Settings)
	}{
		{
			name:    "invalid JSON ignores the whole file",
			project: `{"edit": {"fuzzy": true},`,
			wantMsg: "not valid JSON",
			check: func(t *testing.T, s *Settings) {
				if s.Edit.Fuzzy || s.Bash.DefaultTimeoutMs != 4000 {
					t.Errorf("got %+v / %+v: want the bad file ignored and the local file kept", s.Edit, s.Bash)
				}
			},
		},
		{
			name:    "not an object",
			project: `["Bash"]`,
			wantMsg: "must hold a JSON object",
		},
		{
			name:    "wrong type of a key ignores just that key",
			project: `{"bash": {"defaultTimeoutMs": "5000", "compressOutput": true}}`,
			wantKey: "bash.defaultTimeoutMs",
			wantMsg: "must be a whole number, not the string \"5000\"",
			check: func(t *testing.T, s *Settings) {
				if !s.Bash.CompressOutput || s.Bash.DefaultTimeoutMs != 4000 {
					t.Errorf("bash = %+v: want compressOutput kept and the local timeout", s.Bash)
				}
			},
		},
		{
			name:    "fractional number for an integer key",
			project: `{"bash": {"maxOutputChars": 1.5}}`,
			wantKey: "bash.maxOutputChars",
			wantMsg: "whole number",
		},
		{
			name:    "object expected",
			project: `{"permissions": ["Bash"]}`,
			wantKey: "permissions",
			wantMsg: "must be an object, not an array",
		},
		{
			name:    "unknown permission mode",
			project: `{"permissions": {"defaultMode": "yolo", "allow": ["Bash(ls)"]}}`,
			wantKey: "permissions.defaultMode",
			wantMsg: `unknown permission mode "yolo"`,
			check: func(t *testing.T, s *Settings) {
				if s.Permissions.DefaultMode != "default" || !slices.Contains(s.Permissions.Allow, "Bash(ls)") {
					t.Errorf("permissions = %+v: want the default mode and the good rule", s.Permissions)
				}
			},
		},
		{
			name:    "bad rule syntax drops only that rule",
			project: `{"permissions": {"allow": ["Bash(ls)", "Bash(npm run", "Edit(src/**)"]}}`,
			wantKey: "permissions.allow[1]",
			wantMsg: "does not close",
			check: func(t *testing.T, s *Settings) {
				if want := []string{"Bash(ls)", "Edit(src/**)"}; !reflect.DeepEqual(s.Permissions.Allow, want) {
					t.Errorf("allow = %q, want %q", s.Permissions.Allow, want)
				}
			},
		},
		{
			name:    "rule with a wrong element type",
			project: `{"permissions": {"deny": [42, "Bash(rm:*)"]}}`,
			wantKey: "permissions.deny[0]",
			wantMsg: "must be a string",
			check: func(t *testing.T, s *Settings) {
				if !reflect.DeepEqual(s.Permissions.Deny, []string{"Bash(rm:*)"}) {
					t.Errorf("deny = %q", s.Permissions.Deny)
				}
			},
		},
		{
			name:    "WebFetch rule without domain",
			project: `{"permissions": {"allow": ["WebFetch(https://example.com)"]}}`,
			wantKey: "permissions.allow[0]",
			wantMsg: "WebFetch rules take a domain",
		},
		{
			name:    "bad regexp in blockedCommands",
			project: `{"bash": {"blockedCommands": ["rm -rf (", "^shutdown"]}}`,
			wantKey: "bash.blockedCommands[0]",
			wantMsg: "not a valid regular expression",
			check: func(t *testing.T, s *Settings) {
				if !reflect.DeepEqual(s.Bash.BlockedCommands, []string{"^shutdown"}) {
					t.Errorf("blockedCommands = %q", s.Bash.BlockedCommands)
				}
			},
		},
		{
			name:    "unknown key",
			project: `{"bash": {"timeout": 5}}`,
			wantKey: "bash.timeout",
			wantMsg: "unknown setting",
		},
		{
			name:    "unknown search provider",
			project: `{"webSearch": {"provider": "altavista"}}`,
			wantKey: "webSearch.provider",
			wantMsg: "unknown search provider",
			check: func(t *testing.T, s *Settings) {
				if s.WebSearch.Provider != "duckduckgo" {
					t.Errorf("provider = %q, want the default", s.WebSearch.Provider)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tt := newTree(t)
			writeFile(t, tt.project(), tc.project)
			writeFile(t, tt.local(), `{"bash": {"defaultTimeoutMs": 4000}}`)
			s := tt.store("")
			problems := s.Problems()
			if len(problems) != 1 {
				t.Fatalf("problems = %v, want exactly one", problems)
			}
			p := problems[0]
			if p.File != tt.project() || p.Key != tc.wantKey || !strings.Contains(p.Message, tc.wantMsg) {
				t.Errorf("problem = %+v, want file %s, key %q, message containing %q", p, tt.project(), tc.wantKey, tc.wantMsg)
			}
			if s.Current().Bash.DefaultTimeoutMs != 4000 {
				t.Errorf("the good local file was not applied after a bad project file")
			}
			if tc.check != nil {
				tc.check(t, s.Current())
			}
		})
	}
}

func TestStoreClientLayers(t *testing.T) {
	tt := newTree(t)
	s := tt.store(`{"permissions": {"defaultMode": "nope"}}`)
	if p := s.Problems(); len(p) != 1 || p[0].File != SourceInitOptions || p[0].Key != "permissions.defaultMode" {
		t.Fatalf("problems = %v, want one for initializationOptions", p)
	}

	var seen []*Settings
	s.OnChange(func(st *Settings) { seen = append(seen, st) })

	s.ApplyConfigurationChange(json.RawMessage(`{"edit": {"fuzzy": true}}`))
	if !s.Current().Edit.Fuzzy {
		t.Error("a bare settings object from didChangeConfiguration was not applied")
	}
	s.ApplyConfigurationChange(json.RawMessage(`{"toolhost": {"bash": {"compressOutput": true}}, "files": {"exclude": {}}}`))
	for _, p := range s.Problems() {
		if p.File == SourceConfigChange {
			t.Errorf("other configuration sections next to toolhost were reported: %v", p)
		}
	}
	if cur := s.Current(); cur.Edit.Fuzzy || !cur.Bash.CompressOutput {
		t.Errorf("a {toolhost: ...} change should replace the previous change layer: %+v %+v", cur.Edit, cur.Bash)
	}
	s.ApplyConfigurationChange(json.RawMessage(`{"toolhost": {"bash": {"compressOutput": true}}}`))
	if len(seen) != 2 {
		t.Errorf("OnChange ran %d times, want 2 (the repeated change changes nothing)", len(seen))
	}
	if len(seen) > 0 && seen[len(seen)-1] != s.Current() {
		t.Error("OnChange was not given the current snapshot")
	}
	s.SetInitOptions(json.RawMessage(`{"permissions": {"defaultMode": "plan"}}`))
	if s.Current().Permissions.DefaultMode != "plan" || len(s.Problems()) != 0 {
		t.Errorf("SetInitOptions: mode %q problems %v", s.Current().Permissions.DefaultMode, s.Problems())
	}
}

func TestStoreReload(t *testing.T) {
	tt := newTree(t)
	s := tt.store("")
	before := s.Current()
	writeFile(t, tt.project(), `{"tools": {"disabled": ["WebSearch"]}}`)
	if s.Current() != before {
		t.Fatal("the snapshot changed without a reload")
	}
	s.Reload()
	if !reflect.DeepEqual(s.Current().Tools.Disabled, []string{"WebSearch"}) {
		t.Errorf("tools.disabled = %q after reload", s.Current().Tools.Disabled)
	}
	if before.Tools.Disabled != nil {
		t.Error("an old snapshot was modified by a reload")
	}
}

func TestSaveLocalRuleKeepsOtherKeys(t *testing.T) {
	tt := newTree(t)
	writeFile(t, tt.local(), `{"edit": {"fuzzy": true}, "permissions": {"allow": ["Bash(ls)"], "deny": ["Read(./.env)"]}, "custom": {"x": 1}}`)
	s := tt.store("")
	for _, r := range []string{"Bash(npm run test:*)", "Bash(npm run test:*)", "Edit(src/**)"} {
		if err := s.SaveLocalRule(tt.root, r); err != nil {
			t.Fatalf("SaveLocalRule(%s): %v", r, err)
		}
	}
	var doc map[string]any
	raw, err := os.ReadFile(tt.local())
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("the file is not JSON after saving: %v\n%s", err, raw)
	}
	perms := doc["permissions"].(map[string]any)
	if want := []any{"Bash(ls)", "Bash(npm run test:*)", "Edit(src/**)"}; !reflect.DeepEqual(perms["allow"], want) {
		t.Errorf("allow = %v, want %v", perms["allow"], want)
	}
	if !reflect.DeepEqual(perms["deny"], []any{"Read(./.env)"}) || !reflect.DeepEqual(doc["edit"], map[string]any{"fuzzy": true}) ||
		!reflect.DeepEqual(doc["custom"], map[string]any{"x": 1.0}) {
		t.Errorf("other keys were not kept: %s", raw)
	}
	if !slices.Contains(s.Current().Permissions.Allow, "Edit(src/**)") {
		t.Error("the store was not reloaded after saving")
	}
	if err := s.SaveLocalRule(tt.root, "Bash("); err == nil {
		t.Error("a rule with bad syntax was saved")
	}
}

func TestSaveLocalRuleCreatesFileAndRefusesBadFile(t *testing.T) {
	tt := newTree(t)
	s := tt.store("")
	if err := s.SaveLocalRule(tt.root, "WebFetch(domain:go.dev)"); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(s.Current().Permissions.Allow, "WebFetch(domain:go.dev)") {
		t.Error("the new file's rule is not in effect")
	}
	writeFile(t, tt.local(), `{broken`)
	if err := s.SaveLocalRule(tt.root, "Bash(ls)"); err == nil {
		t.Error("a file that is not JSON was overwritten")
	}
	if raw, _ := os.ReadFile(tt.local()); string(raw) != `{broken` {
		t.Errorf("the broken file changed: %s", raw)
	}
}

func TestSetLocal(t *testing.T) {
	tests := []struct {
		key     string
		value   any
		wantErr string
		check   func(s *Settings) bool
	}{
		{key: "edit.fuzzy", value: true, check: func(s *Settings) bool { return s.Edit.Fuzzy }},
		{key: "bash.defaultTimeoutMs", value: 9000, check: func(s *Settings) bool { return s.Bash.DefaultTimeoutMs == 9000 }},
		{key: "tools.disabled", value: []string{"WebSearch"}, check: func(s *Settings) bool { return slices.Equal(s.Tools.Disabled, []string{"WebSearch"}) }},
		{key: "permissions.defaultMode", value: "acceptEdits", check: func(s *Settings) bool { return s.Permissions.DefaultMode == "acceptEdits" }},
		{key: "permissions.defaultMode", value: "sideways", wantErr: "unknown permission mode"},
		{key: "bash.defaultTimeoutMs", value: "soon", wantErr: "whole number"},
		{key: "bash.nonsense", value: 1, wantErr: "no setting"},
	}
	for _, tc := range tests {
		t.Run(tc.key+"="+strings.ReplaceAll(jsonString(tc.value), "/", "_"), func(t *testing.T) {
			tt := newTree(t)
			writeFile(t, tt.local(), `{"env": {"KEEP": "1"}}`)
			s := tt.store("")
			err := s.SetLocal(tt.root, tc.key, tc.value)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				if raw, _ := os.ReadFile(tt.local()); string(raw) != `{"env": {"KEEP": "1"}}` {
					t.Errorf("the file changed on error: %s", raw)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(s.Current()) {
				t.Errorf("the setting is not in effect after SetLocal")
			}
			if s.Current().Env["KEEP"] != "1" {
				t.Error("other keys were lost")
			}
			if err := s.SetLocal(tt.root, tc.key, nil); err != nil {
				t.Fatal(err)
			}
			if tc.check(s.Current()) {
				t.Error("removing the key did not undo it")
			}
		})
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestLookup(t *testing.T) {
	s := Defaults()
	s.Env = map[string]string{"GOFLAGS": "-mod=mod"}
	tests := []struct {
		key     string
		want    any
		wantErr string
	}{
		{key: "permissions.defaultMode", want: "default"},
		{key: "bash.defaultTimeoutMs", want: 120_000},
		{key: "edit.fuzzy", want: false},
		{key: "webFetch.maxBytes", want: int64(10 << 20)},
		{key: "env.GOFLAGS", want: "-mod=mod"},
		{key: "env.MISSING", want: nil},
		{key: "bash.maskSecrets", want: nil},
		{key: "bash.nope", wantErr: "the keys under bash are"},
		{key: "edit.fuzzy.deeper", wantErr: "single value"},
		{key: "", wantErr: "not a dotted key"},
	}
	for _, tc := range tests {
		t.Run(tc.key, func(t *testing.T) {
			got, err := s.Lookup(tc.key)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Lookup = %#v, %v; want %#v", got, err, tc.want)
			}
		})
	}
	keys := Keys()
	for _, k := range []string{"permissions.defaultMode", "bash.compressOutput", "webSearch.provider", "env"} {
		if !slices.Contains(keys, k) {
			t.Errorf("Keys() lacks %s", k)
		}
	}
}

func TestParseRule(t *testing.T) {
	tests := []struct {
		in      string
		want    Rule
		wantErr string
	}{
		{in: "Bash", want: Rule{Tool: "Bash"}},
		{in: "Bash(*)", want: Rule{Tool: "Bash"}},
		{in: " Bash(npm run test:*) ", want: Rule{Tool: "Bash", Specifier: "npm run test:*"}},
		{in: "Bash(echo (a))", want: Rule{Tool: "Bash", Specifier: "echo (a)"}},
		{in: "Edit(src/**)", want: Rule{Tool: "Edit", Specifier: "src/**"}},
		{in: "WebFetch(domain:example.com)", want: Rule{Tool: "WebFetch", Specifier: "domain:example.com"}},
		{in: "mcp__github__*", want: Rule{Tool: "mcp__github__*"}},
		{in: "mcp__github", want: Rule{Tool: "mcp__github"}},
		{in: "", wantErr: "empty"},
		{in: "Bash()", wantErr: "empty parentheses"},
		{in: "Bash(ls", wantErr: "does not close"},
		{in: "Bash ls)", wantErr: "never opened"},
		{in: "Ba*sh", wantErr: "tool name"},
		{in: "Edit*", wantErr: "only allowed for MCP"},
		{in: "Bash(npm:* x)", wantErr: "only allowed at the end"},
		{in: "Edit(src/[a)", wantErr: "not a valid pattern"},
		{in: "mcp__github__x(y)", wantErr: "MCP rules take no parentheses"},
		{in: "(ls)", wantErr: "tool name"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseRule(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseRule(%q) = %v, %v; want error containing %q", tc.in, got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("ParseRule(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestStoreConcurrentSaves(t *testing.T) {
	tt := newTree(t)
	s := tt.store("")
	const n = 8
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if err := s.SaveLocalRule(tt.root, fmt.Sprintf("Bash(tool%d:*)", i)); err != nil {
				t.Error(err)
			}
		}()
		go func() {
			defer wg.Done()
			_ = s.Current().Permissions.Allow
			s.Reload()
		}()
	}
	wg.Wait()
	s.Reload()
	if got := len(s.Current().Permissions.Allow); got != n {
		t.Errorf("%d rules after %d concurrent saves: %q", got, n, s.Current().Permissions.Allow)
	}
}

// A settings file that is a FIFO (a hostile repository) is reported and
// ignored; loading does not wait on it.
func TestSettingsFileThatIsAFIFO(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".toolhost"), 0o755); err != nil {
		t.Fatal(err)
	}
	testfifo.Make(t, filepath.Join(root, ".toolhost", "settings.json"))
	done := make(chan []Problem, 1)
	go func() {
		s := NewStore(LoadOptions{Roots: []string{root}, UserConfigPath: filepath.Join(t.TempDir(), "none.json")})
		done <- s.Problems()
	}()
	select {
	case problems := <-done:
		found := false
		for _, p := range problems {
			found = found || strings.Contains(p.Message, "not a regular file")
		}
		if !found {
			t.Errorf("problems %+v do not report the FIFO", problems)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("loading the settings waits on a FIFO")
	}
}
