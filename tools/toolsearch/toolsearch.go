// Package toolsearch is the ToolSearch tool: the definitions of the tools a
// listing deferred (tools.IsDeferred), by name or by keywords, as Claude
// Code's ToolSearch returns them.
package toolsearch

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
)

//go:embed toolsearch.md
var description string

// defaultMaxResults is Claude Code's default max_results.
const defaultMaxResults = 5

// Tool is ToolSearch.
type Tool struct {
	reg      *tools.Registry
	settings func() *settings.Settings
}

// New returns ToolSearch over the tools of reg deferred by settings' (nil:
// the defaults) tools.deferred.
func New(reg *tools.Registry, settings func() *settings.Settings) *Tool {
	return &Tool{reg: reg, settings: settings}
}

func (*Tool) Name() string                 { return tools.ToolSearchName }
func (*Tool) Description() string          { return description }
func (*Tool) SideEffect() tools.SideEffect { return tools.SideEffectNone }

var schema = tools.SchemaOf[input](nil)

func (*Tool) InputSchema() json.RawMessage { return schema.JSON() }

type input struct {
	Query      string   `json:"query" jsonschema:"\"select:Name1,Name2\" to load those tools, or keywords to search the deferred tools by."`
	MaxResults *float64 `json:"max_results,omitempty" jsonschema:"The most tools to return (default 5)." schema:"default=5"`
}

// Docs implements tools.Documented.
func (*Tool) Docs() tools.Docs {
	return tools.Docs{
		Short: "Load the definitions of deferred tools, by name (select:A,B) or by keywords.",
		Long: "Claude Code's ToolSearch. A listing that asks for it (toolhost/listTools with deferred: true, or an MCP " +
			"client that asks) names the deferred tools only — MCP tools and rarely used built-ins by default, the " +
			"tools.deferred setting — and the model loads a tool's definition here before calling it. " +
			"`select:Name1,Name2` returns exactly those; other queries rank the deferred tools by the keywords found in " +
			"their names (weighing most) and descriptions. The result carries each definition (name, description, " +
			"input_schema) as JSON.",
		Examples: []tools.Example{
			{Title: "Load two tools by name", Input: json.RawMessage(`{"query":"select:NotebookEdit,mcp__github__create_issue"}`)},
			{Title: "Search by keywords", Input: json.RawMessage(`{"query":"github issue","max_results":3}`)},
		},
	}
}

// deferred returns the enabled deferred tools host can serve.
func (t *Tool) deferred(host tools.Host) []tools.Tool {
	var patterns []string
	if t.settings != nil {
		patterns = t.settings().Tools.Deferred
	}
	var out []tools.Tool
	for _, e := range t.reg.Entries(false) {
		if tools.IsDeferred(e.Tool.Name(), patterns) && tools.Unservable(e.Tool, host) == "" {
			out = append(out, e.Tool)
		}
	}
	return out
}

// Execute returns the definitions asked for.
func (t *Tool) Execute(_ context.Context, call *tools.Call) (*tools.Result, error) {
	var in input
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return tools.ErrorResult("the input of ToolSearch is not valid: %v. Send {\"query\": \"select:Name\"} or {\"query\": \"keywords\"}.", err), nil
	}
	limit := defaultMaxResults
	if in.MaxResults != nil && *in.MaxResults >= 1 {
		limit = int(*in.MaxResults)
	}
	pool := t.deferred(call.Host)
	var found []tools.Tool
	var missing, unserved []string
	if names, ok := strings.CutPrefix(strings.TrimSpace(in.Query), "select:"); ok {
		for _, n := range strings.Split(names, ",") {
			n = strings.TrimSpace(n)
			if n == "" {
				continue
			}
			i := slices.IndexFunc(pool, func(x tools.Tool) bool { return strings.EqualFold(x.Name(), n) })
			if i < 0 {
				// A tool listed in full may be asked for too; one this
				// host cannot serve is named with the reason.
				if e, ok := t.reg.Lookup(n); ok && e.Enabled {
					if why := tools.Unservable(e.Tool, call.Host); why != "" {
						unserved = append(unserved, why)
						continue
					}
					found = append(found, e.Tool)
					continue
				}
				missing = append(missing, n)
				continue
			}
			found = append(found, pool[i])
		}
	} else {
		found = rank(pool, in.Query)
		if len(found) > limit {
			found = found[:limit]
		}
	}
	return render(in.Query, found, missing, unserved, len(pool))
}

// rank orders the tools in pool that match any keyword of query, best first:
// a keyword in the name counts more than one in the description.
func rank(pool []tools.Tool, query string) []tools.Tool {
	words := strings.Fields(strings.ToLower(query))
	type scored struct {
		t     tools.Tool
		score int
	}
	var hits []scored
	for _, t := range pool {
		name, desc := strings.ToLower(t.Name()), strings.ToLower(t.Description())
		score := 0
		for _, w := range words {
			if strings.Contains(name, w) {
				score += 10
			}
			if strings.Contains(desc, w) {
				score += 2
			}
		}
		if score > 0 {
			hits = append(hits, scored{t, score})
		}
	}
	slices.SortStableFunc(hits, func(a, b scored) int { return b.score - a.score })
	out := make([]tools.Tool, len(hits))
	for i, h := range hits {
		out[i] = h.t
	}
	return out
}

// render is the result: each definition as JSON in a <functions> block,
// then the names no tool has and why the tools not served here are not.
func render(query string, found []tools.Tool, missing, unserved []string, total int) (*tools.Result, error) {
	var b strings.Builder
	names := make([]string, 0, len(found))
	if len(found) == 0 {
		fmt.Fprintf(&b, "No deferred tool matches %q (%d tools are deferred). Try other keywords, or select:Name with a name from the tool list.", query, total)
	} else {
		b.WriteString("<functions>\n")
		for _, t := range found {
			def, err := tools.Definition(t, tools.FormatAnthropic)
			if err != nil {
				return nil, err
			}
			raw, err := json.Marshal(def)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(&b, "<function>%s</function>\n", raw)
			names = append(names, t.Name())
		}
		b.WriteString("</functions>")
	}
	if len(missing) > 0 {
		fmt.Fprintf(&b, "\n[No tool is named %s.]", strings.Join(missing, ", "))
	}
	for _, why := range unserved {
		fmt.Fprintf(&b, "\n[%s]", why)
	}
	res := tools.TextResult(b.String())
	res.Structured = map[string]any{"matches": names, "query": query, "total_deferred_tools": total}
	return res, nil
}
