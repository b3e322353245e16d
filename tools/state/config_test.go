package state

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/engine"
	"github.com/toolhost/toolhost/tools/permission"
	"github.com/toolhost/toolhost/workspace"
)

// configEnv is a workspace root with a settings store and a permission
// checker over it.
type configEnv struct {
	root    string
	store   *settings.Store
	checker *permission.Checker
	tool    *Config
}

func newConfigEnv(t *testing.T, projectSettings string) *configEnv {
	t.Helper()
	dir := t.TempDir()
	root := filepath.Join(dir, "proj")
	if err := os.MkdirAll(filepath.Join(root, settings.ProjectDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if projectSettings != "" {
		if err := os.WriteFile(filepath.Join(root, settings.ProjectDir, settings.ProjectFile), []byte(projectSettings), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The user trusts the folder: Config's reads and writes are the subject.
	if _, err := (settings.TrustFile{Path: filepath.Join(dir, settings.TrustFileName)}).Trust(root); err != nil {
		t.Fatal(err)
	}
	store := settings.NewStore(settings.LoadOptions{Roots: []string{root}, UserConfigPath: filepath.Join(dir, "none.json")})
	ws := workspace.New(root)
	checker := permission.New(permission.Options{Workspace: ws, Settings: store.Current, Saver: store})
	return &configEnv{root: root, store: store, checker: checker, tool: NewConfig(store, ws.Root, checker)}
}

func (e *configEnv) call(t *testing.T, input string) *tools.Result {
	t.Helper()
	res, err := e.tool.Execute(context.Background(), &tools.Call{ID: "c", Name: "Config", Input: json.RawMessage(input), Host: tools.NoHost{}, Progress: tools.NoProgress{}})
	if err != nil {
		t.Fatalf("Execute(%s): %v", input, err)
	}
	return res
}

func TestConfigRead(t *testing.T) {
	e := newConfigEnv(t, `{"bash": {"defaultTimeoutMs": 5000}, "webSearch": {"apiKey": "sekrit"}, "env": {"GITHUB_TOKEN": "ghp_x", "GOFLAGS": "-v"}}`)
	tests := []struct {
		input, want, wantErr string
	}{
		{input: `{"setting":"bash.defaultTimeoutMs"}`, want: "bash.defaultTimeoutMs = 5000"},
		{input: `{"setting":"permissions.defaultMode"}`, want: `permissions.defaultMode = "default" (the saved default, which new sessions start in). This session's permission mode is default.`},
		{input: `{"setting":"edit.fuzzy"}`, want: "edit.fuzzy = false"},
		{input: `{"setting":"webSearch.apiKey"}`, want: `webSearch.apiKey = "(hidden)"`},
		{input: `{"setting":"env"}`, want: `env = {"GITHUB_TOKEN":"(hidden)","GOFLAGS":"-v"}`},
		{input: `{"setting":"bash.nope"}`, wantErr: "the keys under bash are"},
	}
	for _, tc := range tests {
		t.Run(tc.input, func(t *testing.T) {
			res := e.call(t, tc.input)
			if tc.wantErr != "" {
				if !res.IsError || !strings.Contains(res.Text(), tc.wantErr) || !strings.HasPrefix(res.Text(), "Error: ") {
					t.Errorf("got %q, want an error with %q", res.Text(), tc.wantErr)
				}
				return
			}
			if res.IsError || res.Text() != tc.want {
				t.Errorf("got %q, want %q", res.Text(), tc.want)
			}
		})
	}
	if raw, _ := os.ReadFile(settings.LocalPath(e.root)); raw != nil {
		t.Errorf("reading wrote the local file: %s", raw)
	}
}

func TestConfigWrite(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		wantErr string
		check   func(s *settings.Settings) bool
	}{
		{name: "bool", input: `{"setting":"edit.fuzzy","value":true}`, check: func(s *settings.Settings) bool { return s.Edit.Fuzzy }},
		{name: "bool as string", input: `{"setting":"bash.compressOutput","value":"true"}`, check: func(s *settings.Settings) bool { return s.Bash.CompressOutput }},
		{name: "number", input: `{"setting":"bash.defaultTimeoutMs","value":30000}`, check: func(s *settings.Settings) bool { return s.Bash.DefaultTimeoutMs == 30000 }},
		{name: "number as string", input: `{"setting":"bash.defaultTimeoutMs","value":"45000"}`, check: func(s *settings.Settings) bool { return s.Bash.DefaultTimeoutMs == 45000 }},
		{name: "list", input: `{"setting":"tools.disabled","value":["WebSearch","WebFetch"]}`, check: func(s *settings.Settings) bool {
			return slices.Equal(s.Tools.Disabled, []string{"WebSearch", "WebFetch"})
		}},
		{name: "list as comma string", input: `{"setting":"tools.disabled","value":"WebSearch, Agent"}`, check: func(s *settings.Settings) bool {
			return slices.Equal(s.Tools.Disabled, []string{"WebSearch", "Agent"})
		}},
		{name: "provider", input: `{"setting":"webSearch.provider","value":"brave"}`, check: func(s *settings.Settings) bool { return s.WebSearch.Provider == "brave" }},
		{name: "bad provider", input: `{"setting":"webSearch.provider","value":"altavista"}`, wantErr: "unknown search provider"},
		{name: "bad mode", input: `{"setting":"permissions.defaultMode","value":"yolo"}`, wantErr: "unknown permission mode"},
		{name: "wrong type", input: `{"setting":"edit.fuzzy","value":"maybe"}`, wantErr: "true or false"},
		{name: "not writable", input: `{"setting":"permissions.allow","value":["Bash"]}`, wantErr: "cannot be changed with Config"},
		{name: "secret not writable", input: `{"setting":"bash.maskSecrets","value":false}`, wantErr: "cannot be changed with Config"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newConfigEnv(t, "")
			if err := os.WriteFile(settings.LocalPath(e.root), []byte(`{"env": {"KEEP": "yes"}}`), 0o644); err != nil {
				t.Fatal(err)
			}
			e.store.Reload()
			res := e.call(t, tc.input)
			if tc.wantErr != "" {
				if !res.IsError || !strings.Contains(res.Text(), tc.wantErr) {
					t.Errorf("got %q, want an error with %q", res.Text(), tc.wantErr)
				}
				if raw, _ := os.ReadFile(settings.LocalPath(e.root)); string(raw) != `{"env": {"KEEP": "yes"}}` {
					t.Errorf("a refused write changed the file: %s", raw)
				}
				if e.checker.Mode() != tools.ModeDefault {
					t.Errorf("a refused write changed the mode to %s", e.checker.Mode())
				}
				return
			}
			if res.IsError || !strings.HasPrefix(res.Text(), "Set ") {
				t.Fatalf("got %q", res.Text())
			}
			if !tc.check(e.store.Current()) {
				t.Error("the setting is not in effect")
			}
			// The value is in the file, next to the key that was there.
			fresh := settings.NewStore(settings.LoadOptions{Roots: []string{e.root}, UserConfigPath: filepath.Join(e.root, "none.json"), TrustFile: filepath.Join(filepath.Dir(e.root), settings.TrustFileName)})
			if !tc.check(fresh.Current()) || fresh.Current().Env["KEEP"] != "yes" {
				t.Errorf("the local file does not hold the change and the old keys")
			}
		})
	}
}

func TestConfigModeAndPermission(t *testing.T) {
	e := newConfigEnv(t, "")
	res := e.call(t, `{"setting":"permissions.defaultMode","value":"acceptEdits"}`)
	if res.IsError || e.checker.Mode() != tools.ModeAcceptEdits || !strings.Contains(res.Text(), "permission mode is now acceptEdits") {
		t.Errorf("result %q, mode %s; want the session switched to acceptEdits", res.Text(), e.checker.Mode())
	}

	// A read runs without a prompt; a write asks, with a preview of the change.
	ctx := context.Background()
	host := &recordingPermissionHost{resp: tools.PermissionResponse{Decision: tools.DecisionDeny}}
	check := func(input string) tools.PermissionOutcome {
		out, err := e.checker.Check(ctx, host, tools.PermissionCall{Tool: e.tool, Input: json.RawMessage(input)})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if out := check(`{"setting":"edit.fuzzy"}`); !out.Allow || len(host.requests) != 0 {
		t.Errorf("reading a setting was not allowed without a prompt: %+v", out)
	}
	if out := check(`{"setting":"permissions.defaultMode","value":"bypassPermissions"}`); out.Allow || len(host.requests) != 1 {
		t.Fatalf("switching to bypassPermissions did not ask: %+v", out)
	}
	req := host.requests[0]
	if req.Risk != tools.RiskCritical || req.Preview == nil || !strings.Contains(req.Preview.Text, `+permissions.defaultMode: "bypassPermissions"`) {
		t.Errorf("request risk %s preview %+v", req.Risk, req.Preview)
	}
}

// recordingPermissionHost records permission prompts and answers them as
// scripted.
type recordingPermissionHost struct {
	tools.NoHost
	resp     tools.PermissionResponse
	err      error
	requests []tools.PermissionRequest
}

func (h *recordingPermissionHost) RequestPermission(_ context.Context, req tools.PermissionRequest) (tools.PermissionResponse, error) {
	h.requests = append(h.requests, req)
	return h.resp, h.err
}

// The schemas reject what the tools cannot take. (That they match the
// params and accept the examples is checked for every tool in session.)
func TestConfigAndExitPlanModeSchemas(t *testing.T) {
	e := newConfigEnv(t, "")
	v := engine.NewValidator()
	exit := NewExitPlanMode(e.checker, func() string { return e.root })
	bad := []struct {
		tool  tools.Tool
		input string
	}{
		{e.tool, `{}`},
		{e.tool, `{"setting":""}`},
		{e.tool, `{"setting":"edit.fuzzy","value":{"a":1}}`},
		{e.tool, `{"setting":"tools.disabled","value":[1]}`},
		{e.tool, `{"setting":"edit.fuzzy","extra":1}`},
		{exit, `{"allowedPrompts":[{"tool":"Edit","prompt":"x"}]}`},
	}
	for _, b := range bad {
		if problems, err := v.Problems(b.tool, []byte(b.input), nil); err != nil || len(problems) == 0 {
			t.Errorf("%s accepted %s (%v)", b.tool.Name(), b.input, err)
		}
	}
	if problems, _ := v.Problems(exit, []byte(`{"allowedPrompts":[{"tool":"Bash","prompt":"run tests"}],"plan":"p"}`), nil); len(problems) > 0 {
		t.Errorf("ExitPlanMode rejected Claude Code's input: %v", problems)
	}
}
