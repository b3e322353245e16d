package mcp

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/tools"
)

//go:embed refresh_mcp_tools.md
var refreshMcpToolsDescription string

var refreshMcpToolsSchema = tools.SchemaOf[refreshParams](nil)

// refreshParams is the input of RefreshMcpTools.
type refreshParams struct {
	Server string `json:"server,omitempty" jsonschema:"Refresh only this server; omit to refresh every connected server."`
}

// RefreshStatus values, as in Claude Code.
const (
	RefreshRefreshed    = "refreshed"
	RefreshError        = "error"
	RefreshNotConnected = "not_connected"
)

// RefreshEntry is one server in RefreshMcpTools' output.
type RefreshEntry struct {
	Server    string   `json:"server"`
	Status    string   `json:"status"`
	ToolCount *int     `json:"toolCount,omitempty"`
	Added     []string `json:"added,omitempty"`
	Removed   []string `json:"removed,omitempty"`
	Error     string   `json:"error,omitempty"`
}

// RefreshMcpTools re-lists the tools of MCP servers.
type RefreshMcpTools struct {
	manager *Manager
}

// NewRefreshMcpTools returns the tool over m's servers.
func NewRefreshMcpTools(m *Manager) *RefreshMcpTools { return &RefreshMcpTools{manager: m} }

func (*RefreshMcpTools) Name() string                 { return "RefreshMcpTools" }
func (*RefreshMcpTools) Description() string          { return refreshMcpToolsDescription }
func (*RefreshMcpTools) InputSchema() json.RawMessage { return refreshMcpToolsSchema.JSON() }

// SideEffect is state: it changes only the session's tool set.
func (*RefreshMcpTools) SideEffect() tools.SideEffect { return tools.SideEffectState }

func (*RefreshMcpTools) Docs() tools.Docs {
	return tools.Docs{
		Short: "Re-list the tools of the connected MCP servers and apply the change.",
		Long: "Per server: refreshed (with the tools added and removed), error (the previous tools are kept) or " +
			"not_connected (it never starts a server). The client gets toolhost/toolsChanged when the set changed.",
		Examples: []tools.Example{
			{Title: "Refresh every server", Input: json.RawMessage(`{}`)},
			{Title: "Refresh one server", Input: json.RawMessage(`{"server":"github"}`)},
		},
	}
}

func (t *RefreshMcpTools) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var p refreshParams
	if err := json.Unmarshal(call.Input, &p); err != nil {
		return tools.ErrorResult("invalid input: %v.", err), nil
	}
	names, bad := t.manager.namesFor(p.Server)
	if bad != nil {
		return bad, nil
	}
	if len(names) == 0 {
		return tools.TextResult("No MCP servers are configured (mcpServers in the settings, or the project's .mcp.json)."), nil
	}
	out := []RefreshEntry{}
	var lines []string
	for _, name := range names {
		e := t.refresh(name)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out = append(out, e)
		line := fmt.Sprintf("%s: %s", name, e.Status)
		switch e.Status {
		case RefreshRefreshed:
			line += fmt.Sprintf(", %d tools", *e.ToolCount)
			if len(e.Added) > 0 {
				line += "; added " + strings.Join(e.Added, ", ")
			}
			if len(e.Removed) > 0 {
				line += "; removed " + strings.Join(e.Removed, ", ")
			}
		default:
			line += " (" + e.Error + ")"
		}
		lines = append(lines, line)
	}
	return &tools.Result{Content: []tools.Content{{Type: "text", Text: strings.Join(lines, "\n")}}, Structured: out}, nil
}

// refresh re-lists one server's tools.
func (t *RefreshMcpTools) refresh(name string) RefreshEntry {
	e := RefreshEntry{Server: name}
	srv := t.manager.server(name)
	if srv == nil {
		e.Status, e.Error = RefreshNotConnected, "it was removed from the settings"
		return e
	}
	cs, st := srv.current()
	if cs == nil {
		e.Status, e.Error = RefreshNotConnected, downMessage(st)
		return e
	}
	before := t.toolNames(name)
	if err := srv.refreshTools(cs); err != nil {
		e.Status, e.Error = RefreshError, err.Error()+"; the previous tools are kept"
		return e
	}
	after := t.toolNames(name)
	n := len(after)
	e.Status, e.ToolCount = RefreshRefreshed, &n
	for _, a := range after {
		if !slices.Contains(before, a) {
			e.Added = append(e.Added, a)
		}
	}
	for _, b := range before {
		if !slices.Contains(after, b) {
			e.Removed = append(e.Removed, b)
		}
	}
	return e
}

// toolNames are the registered tools of a server.
func (t *RefreshMcpTools) toolNames(server string) []string {
	prefix := ToolPrefix(server)
	var out []string
	for _, n := range t.manager.reg.Names() {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}
