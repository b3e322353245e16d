package providers

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/toolhost/toolhost/internal/chatapi"
	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
)

//go:embed ask.md
var askDescription string

// Prefix starts the name of every provider tool.
const Prefix = "ask_"

// askTimeout bounds one question.
const askTimeout = 5 * time.Minute

// maxToolName is the longest function name chat-completions APIs accept.
const maxToolName = 64

var askSchema = tools.SchemaOf[askParams](nil)

type askParams struct {
	Prompt string `json:"prompt" jsonschema:"The question or task, with everything the other model needs to know (it does not see this conversation)." schema:"minLength=1"`
	System string `json:"system,omitempty" jsonschema:"Optional system instructions for the other model (its role, the answer's form)."`
}

// Ask is the tool of one provider.
type Ask struct {
	name     string // the provider's name in the settings
	toolName string
	provider settings.Agent
	client   *http.Client
}

// ToolName is the tool name of a provider: ask_ and the name with every
// character other than letters, digits, '_' and '-' turned into '_'.
func ToolName(provider string) string {
	var b strings.Builder
	b.WriteString(Prefix)
	for _, r := range provider {
		if r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	n := b.String()
	if len(n) > maxToolName {
		n = n[:maxToolName]
	}
	return n
}

func (a *Ask) Name() string { return a.toolName }
func (a *Ask) Description() string {
	model := a.provider.Model
	if model == "" {
		model = "its default model"
	}
	return fmt.Sprintf("Consult %s (%s, the provider %q). %s", model, hostOf(a.provider.Endpoint), a.name, askDescription)
}
func (*Ask) InputSchema() json.RawMessage { return askSchema.JSON() }
func (*Ask) SideEffect() tools.SideEffect { return tools.SideEffectNetwork }

// Docs implements tools.Documented.
func (a *Ask) Docs() tools.Docs {
	return tools.Docs{
		Short: fmt.Sprintf("Ask the model of the provider %q and return its answer.", a.name),
		Long: "One tool per entry of the providers setting (user settings or the editor only): the prompt " +
			"(and optional system text) go to that OpenAI-compatible chat-completions endpoint with the key " +
			"from the variable apiKeyEnv names, and the answer comes back as text. It asks like other " +
			"network tools unless a rule allows it by name.",
		Examples: []tools.Example{{Title: "A second opinion", Input: json.RawMessage(`{"prompt":"Is this SQL injection-safe? db.Query(\"SELECT * FROM t WHERE id = \" + id)"}`)}},
	}
}

// Access implements tools.AccessDescriber: the endpoint's host.
func (a *Ask) Access(json.RawMessage) tools.Access {
	return tools.Access{Domain: hostOf(a.provider.Endpoint)}
}

// Preview implements tools.Previewer: where the prompt goes.
func (a *Ask) Preview(context.Context, json.RawMessage) *tools.Preview {
	return &tools.Preview{Kind: "url", Text: a.provider.Endpoint}
}

func hostOf(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return endpoint
	}
	return strings.ToLower(u.Hostname())
}

// Execute sends the prompt and returns the answer.
func (a *Ask) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var p askParams
	if err := json.Unmarshal(call.Input, &p); err != nil || strings.TrimSpace(p.Prompt) == "" {
		return tools.ErrorResult("give a prompt: {\"prompt\": \"...\"}."), nil
	}
	if u, err := url.Parse(a.provider.Endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return tools.ErrorResult("the provider %q has no usable endpoint (%q is not an http(s) URL). Ask the user to fix providers.%s.endpoint in the user settings.", a.name, a.provider.Endpoint, a.name), nil
	}
	if env := a.provider.APIKeyEnv; env != "" && os.Getenv(env) == "" {
		return tools.ErrorResult("the provider %q needs an API key in the environment variable %s, which is not set. Ask the user to set it and restart the editor.", a.name, env), nil
	}
	var msgs []chatapi.Message
	if strings.TrimSpace(p.System) != "" {
		msgs = append(msgs, chatapi.Message{Role: "system", Content: p.System})
	}
	msgs = append(msgs, chatapi.Message{Role: "user", Content: p.Prompt})
	if call.Progress != nil {
		call.Progress.Report("waiting for " + a.name)
	}
	ctx, cancel := context.WithTimeout(ctx, askTimeout)
	defer cancel()
	start := time.Now()
	choice, err := chatapi.Client{HTTP: a.client}.Complete(ctx, chatapi.Endpoint(a.provider), chatapi.Request{Messages: msgs})
	if err != nil {
		if ctx.Err() == context.Canceled {
			return nil, ctx.Err()
		}
		return tools.ErrorResult("the provider %q did not answer: %v. Try again later, or check providers.%s in the user settings.", a.name, err, a.name), nil
	}
	answer := strings.TrimSpace(choice.Message.Content)
	if answer == "" {
		return tools.ErrorResult("the provider %q answered no text (finish reason %q).", a.name, choice.FinishReason), nil
	}
	res := tools.TextResult(answer)
	res.Structured = map[string]any{"provider": a.name, "model": a.provider.Model, "answer": answer, "durationMs": time.Since(start).Milliseconds()}
	return res, nil
}

// Syncer keeps a registry's ask_ tools equal to the providers setting.
type Syncer struct {
	reg      *tools.Registry
	category string
	client   *http.Client

	// mu guards last, the providers the tools were last built for, so an
	// unrelated settings change leaves the tools (and the editor) alone.
	mu   sync.Mutex
	last string
}

// NewSyncer returns a Syncer registering tools in reg under category; nil
// client means http.DefaultClient.
func NewSyncer(reg *tools.Registry, category string, client *http.Client) *Syncer {
	return &Syncer{reg: reg, category: category, client: client, last: "null"}
}

// Sync replaces the ask_ tools by those of st.Providers when they changed.
func (s *Syncer) Sync(st *settings.Settings) {
	key, _ := json.Marshal(st.Providers)
	s.mu.Lock()
	defer s.mu.Unlock()
	if string(key) == s.last {
		return
	}
	s.last = string(key)
	names := make([]string, 0, len(st.Providers))
	for n := range st.Providers {
		names = append(names, n)
	}
	sort.Strings(names)
	var ts []tools.Tool
	for _, n := range names {
		p := st.Providers[n]
		if strings.TrimSpace(p.Endpoint) == "" {
			continue
		}
		ts = append(ts, &Ask{name: n, toolName: ToolName(n), provider: p, client: s.client})
	}
	s.reg.ReplacePrefix(Prefix, s.category, ts...)
}
