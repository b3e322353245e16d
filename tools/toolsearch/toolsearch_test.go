package toolsearch

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/settings"
	"github.com/toolhost/toolhost/tools"
)

// mcpTool is an MCP tool as servers describe theirs: a paragraph of
// description and a schema of a few documented properties.
type mcpTool struct{ name, desc string }

func (m mcpTool) Name() string               { return m.name }
func (m mcpTool) Description() string        { return m.desc }
func (mcpTool) SideEffect() tools.SideEffect { return tools.SideEffectMutating }
func (mcpTool) InputSchema() json.RawMessage { return mcpSchema }
func (mcpTool) Execute(context.Context, *tools.Call) (*tools.Result, error) {
	return tools.TextResult("ok"), nil
}

var mcpSchema = json.RawMessage(`{"type":"object","properties":{
 "owner":{"type":"string","description":"Repository owner (user or organisation)."},
 "repo":{"type":"string","description":"Repository name."},
 "title":{"type":"string","description":"Title of the item to create or change."},
 "body":{"type":"string","description":"Body text, Markdown allowed."},
 "labels":{"type":"array","items":{"type":"string"},"description":"Labels to apply."},
 "page":{"type":"number","description":"Page of results, from 1."},
 "perPage":{"type":"number","description":"Results per page, at most 100."}},
 "required":["owner","repo"],"additionalProperties":false}`)

// registry holds the core tools' stand-ins, ToolSearch and n MCP tools.
func registry(n int) (*tools.Registry, *Tool) {
	reg := tools.NewRegistry()
	reg.Register(tools.CategoryCore, mcpTool{"Read", "Read a file."}, mcpTool{"NotebookEdit", "Replace, insert or delete a cell of a Jupyter notebook."})
	for i := range n {
		verb := []string{"create_issue", "list_pulls", "search_code", "get_file", "send_message"}[i%5]
		reg.Register(tools.CategoryExtras, mcpTool{
			name: fmt.Sprintf("mcp__srv%d__%s", i/5, verb),
			desc: fmt.Sprintf("%s on server %d: %s", strings.ReplaceAll(verb, "_", " "), i/5, strings.Repeat("Talks to the remote service and returns what it answers, as JSON text. ", 6)),
		})
	}
	ts := New(reg, settings.Defaults)
	reg.Register(tools.CategoryState, ts)
	return reg, ts
}

// listing is the JSON of a listing of reg, deferred or not.
func listing(t *testing.T, reg *tools.Registry, deferring bool) []byte {
	t.Helper()
	var list []map[string]any
	for _, e := range reg.Entries(false) {
		def, err := tools.ListDefinition(e.Tool, tools.FormatAnthropic, deferring, nil)
		if err != nil {
			t.Fatal(err)
		}
		list = append(list, def)
	}
	raw, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestDeferredListingIsSmall: with 40 MCP tools configured, the deferred
// listing (names only for the MCP tools, as Claude Code sends them) is
// under a fifth of the full one.
func TestDeferredListingIsSmall(t *testing.T) {
	reg, _ := registry(40)
	full, deferred := listing(t, reg, false), listing(t, reg, true)
	t.Logf("40 MCP tools: full listing %d bytes, deferred listing %d bytes (%.1f%%)", len(full), len(deferred), 100*float64(len(deferred))/float64(len(full)))
	if len(deferred)*5 >= len(full) {
		t.Errorf("the deferred listing is %d bytes, not under a fifth of the full %d", len(deferred), len(full))
	}
	if !strings.Contains(string(deferred), `{"deferred":true,"name":"mcp__srv0__create_issue"}`) || !strings.Contains(string(deferred), `{"description":"Loads the full definitions of deferred tools.`) {
		t.Errorf("the deferred listing does not name the MCP tools alone and ToolSearch whole: %.400s", deferred)
	}
}

// TestToolSearch states Claude Code's ToolSearch: select: loads the named
// tools' definitions, keywords rank the deferred tools, max_results bounds
// the answer, and a name that is no tool is said to be none.
func TestToolSearch(t *testing.T) {
	_, ts := registry(40)
	tests := []struct {
		name    string
		input   map[string]any
		matches []string
		want    []string
	}{
		{name: "select two", input: map[string]any{"query": "select:mcp__srv1__list_pulls,NotebookEdit"},
			matches: []string{"mcp__srv1__list_pulls", "NotebookEdit"},
			want:    []string{`<function>{"description":"list pulls on server 1`, `"input_schema":{"type":"object"`}},
		{name: "select a full-listed tool and a missing one", input: map[string]any{"query": "select:Read,nope"},
			matches: []string{"Read"}, want: []string{"No tool is named nope"}},
		{name: "keywords, the name weighing most", input: map[string]any{"query": "notebook cell"},
			matches: []string{"NotebookEdit"}},
		{name: "max_results bounds the matches", input: map[string]any{"query": "issue", "max_results": 3},
			matches: []string{"mcp__srv0__create_issue", "mcp__srv1__create_issue", "mcp__srv2__create_issue"}},
		{name: "no match", input: map[string]any{"query": "kubernetes"}, matches: []string{},
			want: []string{`No deferred tool matches "kubernetes" (41 tools are deferred)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, _ := json.Marshal(tt.input)
			res, err := ts.Execute(context.Background(), &tools.Call{Input: raw})
			if err != nil {
				t.Fatal(err)
			}
			got := res.Structured.(map[string]any)["matches"].([]string)
			if strings.Join(got, ",") != strings.Join(tt.matches, ",") {
				t.Errorf("matches = %v, want %v", got, tt.matches)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Text(), w) {
					t.Errorf("result lacks %q:\n%.600s", w, res.Text())
				}
			}
		})
	}
}

// editorTool is a stand-in for a tool only an editor's client serves.
type editorTool struct{ mcpTool }

func (editorTool) Unservable(h tools.Host) string {
	if _, ok := h.(editorHost); ok {
		return ""
	}
	return "LSP is answered by an editor's language servers, and this session runs with no editor."
}

// editorHost is a host whose client serves editorTool.
type editorHost struct{ tools.NoHost }

// TestToolSearchOffersOnlyServableTools: a tool the call's host cannot
// serve (LSP without an editor) is neither loaded by select: nor found by
// keywords; select: says why instead. With a host that serves it, both
// find it.
func TestToolSearchOffersOnlyServableTools(t *testing.T) {
	reg, ts := registry(0)
	reg.Register(tools.CategoryExtras, editorTool{mcpTool{"LSP", "Ask the editor's language servers: goToDefinition, findReferences."}})
	tests := []struct {
		name    string
		host    tools.Host
		query   string
		matches []string
		want    string
	}{
		{"select without an editor", tools.NoHost{}, "select:LSP,Read", []string{"Read"}, "runs with no editor"},
		{"keywords without an editor", tools.NoHost{}, "language servers", []string{}, "No deferred tool matches"},
		{"select in an editor", editorHost{}, "select:LSP", []string{"LSP"}, `"name":"LSP"`},
		{"keywords in an editor", editorHost{}, "language servers", []string{"LSP"}, `"name":"LSP"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, _ := json.Marshal(map[string]any{"query": tt.query})
			res, err := ts.Execute(context.Background(), &tools.Call{Input: raw, Host: tt.host})
			if err != nil {
				t.Fatal(err)
			}
			got := res.Structured.(map[string]any)["matches"].([]string)
			if strings.Join(got, ",") != strings.Join(tt.matches, ",") {
				t.Errorf("matches = %v, want %v", got, tt.matches)
			}
			if !strings.Contains(res.Text(), tt.want) {
				t.Errorf("result lacks %q:\n%.600s", tt.want, res.Text())
			}
		})
	}
}
