package sys

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
	"github.com/toolhost/toolhost/tools/shell"
)

//go:embed getenv.md
var getEnvDescription string

var getEnvSchema = tools.SchemaOf[getEnvParams](nil)

type getEnvParams struct {
	Name string `json:"name" jsonschema:"The environment variable's exact name, e.g. \"GOPATH\"." schema:"minLength=1"`
}

// GetEnv reads one environment variable, masked by the secret rules.
type GetEnv struct {
	settings func() *settings.Settings
	// environ returns the process environment (os.Environ; tests replace it).
	environ func() []string
}

// NewGetEnv returns GetEnv reading the live settings.
func NewGetEnv(cfg func() *settings.Settings) *GetEnv {
	return &GetEnv{settings: cfg, environ: os.Environ}
}

func (*GetEnv) Name() string                 { return "GetEnv" }
func (*GetEnv) Description() string          { return getEnvDescription }
func (*GetEnv) InputSchema() json.RawMessage { return getEnvSchema.JSON() }
func (*GetEnv) SideEffect() tools.SideEffect { return tools.SideEffectNone }

// Docs implements tools.Documented.
func (*GetEnv) Docs() tools.Docs {
	return tools.Docs{
		Short: "One environment variable as Bash's commands see it; secrets stay hidden.",
		Long: "The value comes from the environment a Bash command gets: toolhost's own plus the `env` " +
			"setting, with the variables `bash.maskSecrets` hides left out (the same rule, so GetEnv never " +
			"shows more than a command could print). Read-only, never asks.",
		Examples: []tools.Example{{Title: "Where Go keeps modules", Input: json.RawMessage(`{"name":"GOMODCACHE"}`)}},
	}
}

// Execute looks the variable up.
func (g *GetEnv) Execute(_ context.Context, call *tools.Call) (*tools.Result, error) {
	var p getEnvParams
	if err := json.Unmarshal(call.Input, &p); err != nil || strings.TrimSpace(p.Name) == "" {
		return tools.ErrorResult("give the variable's name, e.g. {\"name\": \"PATH\"}."), nil
	}
	st := settings.Defaults()
	if g.settings != nil && g.settings() != nil {
		st = g.settings()
	}
	raw := g.environ()
	visible := shell.CommandEnv(raw, st)
	if v, ok := lookup(visible, p.Name); ok {
		res := tools.TextResult(fmt.Sprintf("%s=%s", p.Name, v))
		res.Structured = map[string]any{"name": p.Name, "set": true, "value": v}
		return res, nil
	}
	if _, ok := lookup(raw, p.Name); ok {
		return tools.ErrorResult("%s is set but hidden: its name looks like a secret, and secrets are kept from the model (bash.maskSecrets). If you need it, ask the user; they can allow it with bash.allowedSecrets.", p.Name), nil
	}
	msg := fmt.Sprintf("%s is not set.", p.Name)
	if similar := similarNames(visible, p.Name); len(similar) > 0 {
		msg += " Set variables with similar names: " + strings.Join(similar, ", ") + "."
	}
	res := tools.TextResult(msg)
	res.Structured = map[string]any{"name": p.Name, "set": false}
	return res, nil
}

// lookup finds name in a KEY=value list; the last entry wins, as in exec.
func lookup(env []string, name string) (string, bool) {
	val, found := "", false
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			val, found = v, true
		}
	}
	return val, found
}

// similarNames are up to five names in env that differ from name only in
// case or contain it, for a "did you mean".
func similarNames(env []string, name string) []string {
	want := strings.ToUpper(name)
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		up := strings.ToUpper(k)
		if k != name && (up == want || (len(want) >= 3 && strings.Contains(up, want))) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	if len(out) > 5 {
		out = out[:5]
	}
	return out
}
