package mcp

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolhost/toolhost/tools"
)

//go:embed list_mcp_resources.md
var listMcpResourcesDescription string

// ListMcpResourcesParams is the input of ListMcpResources.
type ListMcpResourcesParams struct {
	// Server limits the listing to one server.
	Server string `json:"server,omitempty" jsonschema:"Name of one MCP server to list; omit for all servers"`
}

var listMcpResourcesSchema = tools.SchemaOf[ListMcpResourcesParams](nil)

// ResourceEntry is one resource in ListMcpResources' output.
type ResourceEntry struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	MimeType    string `json:"mimeType,omitempty"`
	Description string `json:"description,omitempty"`
	Server      string `json:"server"`
}

// ListMcpResources lists the resources of the connected MCP servers.
type ListMcpResources struct {
	manager *Manager
}

// NewListMcpResources returns the tool over m's servers.
func NewListMcpResources(m *Manager) *ListMcpResources { return &ListMcpResources{manager: m} }

func (*ListMcpResources) Name() string        { return "ListMcpResources" }
func (*ListMcpResources) Description() string { return listMcpResourcesDescription }
func (*ListMcpResources) InputSchema() json.RawMessage {
	return listMcpResourcesSchema.JSON()
}
func (*ListMcpResources) SideEffect() tools.SideEffect { return tools.SideEffectNone }

func (*ListMcpResources) Docs() tools.Docs {
	return tools.Docs{
		Short: "List the resources of the connected MCP servers.",
		Long:  listMcpResourcesDescription,
		Examples: []tools.Example{
			{Title: "Every server's resources", Input: json.RawMessage(`{}`)},
			{Title: "One server's resources", Input: json.RawMessage(`{"server":"github"}`)},
		},
	}
}

func (t *ListMcpResources) Execute(ctx context.Context, call *tools.Call) (*tools.Result, error) {
	var p ListMcpResourcesParams
	if err := json.Unmarshal(call.Input, &p); err != nil {
		return tools.ErrorResult("invalid input: %v.", err), nil
	}
	names, bad := t.manager.namesFor(p.Server)
	if bad != nil {
		return bad, nil
	}
	entries := []ResourceEntry{}
	var notes []string
	for _, name := range names {
		srv := t.manager.server(name)
		if srv == nil {
			continue
		}
		cs, st := srv.current()
		if cs == nil {
			if p.Server != "" {
				return tools.ErrorResult("%s", downMessage(st)), nil
			}
			notes = append(notes, fmt.Sprintf("%s is %s", name, st.State))
			continue
		}
		if caps := cs.InitializeResult().Capabilities; caps == nil || caps.Resources == nil {
			continue
		}
		for r, err := range cs.Resources(ctx, nil) {
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				if p.Server != "" {
					return tools.ErrorResult("listing the resources of %q failed: %v.", name, err), nil
				}
				notes = append(notes, fmt.Sprintf("%s failed to list: %v", name, err))
				break
			}
			entries = append(entries, ResourceEntry{URI: r.URI, Name: r.Name, MimeType: r.MIMEType, Description: r.Description, Server: name})
		}
	}
	b, err := json.MarshalIndent(entries, "", "  ")
	if err != nil {
		return nil, err
	}
	text := string(b)
	switch {
	case len(entries) == 0 && len(names) == 0:
		text = "No MCP servers are configured (mcpServers in the settings, or the project's .mcp.json)."
	case len(entries) == 0:
		text = "No resources found. " + text
	}
	if len(notes) > 0 {
		text += "\nNot listed: " + strings.Join(notes, "; ") + "."
	}
	return &tools.Result{Content: []tools.Content{{Type: "text", Text: text}}, Structured: entries}, nil
}

// unknownServer is the error for a server name that is not configured.
func unknownServer(name string, known []string) string {
	if len(known) == 0 {
		return fmt.Sprintf("there is no MCP server named %q: no servers are configured.", name)
	}
	return fmt.Sprintf("there is no MCP server named %q; the configured servers are: %s.", name, strings.Join(known, ", "))
}
